/**
 * Keeps each memory scope's view current, one task per scope at a time. Two ways to know a scope:
 * - with a persisted index (SQLite): open its snapshot and apply the journal after it, then apply
 *   the journal again before every task — every process's writes, and only those, are read again;
 *   a new snapshot is saved once enough facts changed since the last one;
 * - without (memory://, Redis, …): read every fact of the scope, and again whenever its revision
 *   token (changed by every write) is not the one this process last saw.
 * A persisted index that fails is logged and left for the rest of the process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { silentLogger, type Logger } from '../logger.js';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import type { KeyValueNamespace } from '../store/key-value-namespace.js';
import type { Store } from '../store/open-store.js';
import { decodeScopeView, encodeScopeView } from './index-snapshot.js';
import type { MemoryFact } from './memory-fact.js';
import type { FactChange, PersistedMemoryIndex } from './persisted-memory-index.js';
import { createScopeView, factCount, hasFact, putFact, removeFact, type ScopeView } from './scope-view.js';

export type { ScopeView } from './scope-view.js';

/** Facts changed since the last snapshot before a new one is saved: at least this many… */
const SNAPSHOT_MIN_CHANGES = 200;
/** …or this share of the scope, up to `SNAPSHOT_MAX_CHANGES` (what a fresh process applies after opening it). */
const SNAPSHOT_CHANGE_SHARE = 0.05;
const SNAPSHOT_MAX_CHANGES = 2_000;

export interface ScopeCacheOptions {
  persisted?: PersistedMemoryIndex;
  logger?: Logger;
  /** Facts changed since the last snapshot before the next (default: 5 % of the scope, 200 to 2,000). */
  snapshotAfterChanges?: number;
}

export interface ScopeCache {
  readonly facts: KeyValueNamespace<MemoryFact>;
  /** Runs `task` on the scope's current view; tasks on one scope run one at a time (every write is one). */
  withScope<T>(scope: string, task: (view: ScopeView) => Promise<T>): Promise<T>;
  /** The scope's current view. */
  load(scope: string): Promise<ScopeView>;
  /** Fact `id` of the view: from the view, else read from the store (undefined when gone). */
  fact(view: ScopeView, id: string): Promise<MemoryFact | undefined>;
  /** Records in the view a fact this process has written. */
  put(view: ScopeView, fact: MemoryFact): void;
  remove(view: ScopeView, id: string): void;
  /** Marks the scope changed for processes that read scopes in full; call after each write. */
  touch(view: ScopeView): Promise<void>;
  /** A new fact id; ids start with a tag of their scope so one scope is one key range. */
  newId(scope: string): string;
}

const tags = new Map<string, string>();

/** The 6-hex-digit tag of a scope that prefixes its fact ids. */
export function scopeTag(scope: string): string {
  let tag = tags.get(scope);
  if (tag === undefined) {
    tag = createHash('sha1').update(scope).digest('hex').slice(0, 6);
    if (tags.size >= 1_000) tags.clear();
    tags.set(scope, tag);
  }
  return tag;
}

interface ScopeState {
  view: ScopeView;
  /** Full reads: the revision token the view was read at. */
  revision?: string | undefined;
  /** Persisted index: the journal position the view has applied. */
  seq?: number;
  /** Persisted index: facts changed since the last snapshot. */
  changed: Set<string>;
}

/** Creates the cache over the `memory` and `memory-revisions` namespaces (and the persisted index, if any). */
export function createScopeCache(store: Store, options: ScopeCacheOptions = {}): ScopeCache {
  const facts = store.namespace<MemoryFact>('memory');
  const revisions = store.namespace<string>('memory-revisions');
  const logger = options.logger ?? silentLogger;
  const states = new Map<string, ScopeState>();
  const lock = createKeyedMutex();
  let persisted = options.persisted;

  async function readAll(scope: string): Promise<ScopeView> {
    const view = createScopeView(scope);
    for await (const [, fact] of facts.entries(`${scopeTag(scope)}-`)) {
      // Different scopes can share a tag; the fact's own scope decides.
      if (fact.scope === scope) putFact(view, fact);
    }
    return view;
  }

  async function currentByRevision(scope: string, state: ScopeState | undefined): Promise<ScopeView> {
    const revision = await revisions.get(scopeTag(scope));
    if (state && state.seq === undefined && state.revision === revision) return state.view;
    const view = await readAll(scope);
    states.set(scope, { view, revision, changed: new Set() });
    return view;
  }

  function apply(state: ScopeState, changes: readonly FactChange[]): void {
    for (const { id, fact } of changes) {
      if (fact && fact.scope === state.view.scope) putFact(state.view, fact);
      else removeFact(state.view, id);
      state.changed.add(id);
    }
  }

  function snapshotIfDue(index: PersistedMemoryIndex, state: ScopeState): void {
    const size = factCount(state.view);
    const due = options.snapshotAfterChanges ?? Math.min(SNAPSHOT_MAX_CHANGES, Math.max(SNAPSHOT_MIN_CHANGES, Math.ceil(size * SNAPSHOT_CHANGE_SHARE)));
    if (state.changed.size < due) return;
    index.saveSnapshot(state.view.scope, scopeTag(state.view.scope), state.seq ?? 0, encodeScopeView(state.view));
    state.changed.clear();
  }

  async function openPersisted(index: PersistedMemoryIndex, scope: string): Promise<ScopeView> {
    const opened = await index.open(scope, scopeTag(scope));
    const fromSnapshot = opened.snapshot && decodeScopeView(scope, opened.snapshot.data);
    if (opened.snapshot && fromSnapshot) {
      const state: ScopeState = { view: fromSnapshot, seq: opened.snapshot.seq, changed: new Set() };
      apply(state, opened.snapshot.changes);
      states.set(scope, state);
      logger.debug('memory scope opened from its snapshot', { scope, facts: factCount(fromSnapshot), changes: opened.snapshot.changes.length });
      snapshotIfDue(index, state);
      return fromSnapshot;
    }
    // The full read starts after `head`: whatever it misses of later writes, the journal after `head` holds.
    const view = await readAll(scope);
    const state: ScopeState = { view, seq: opened.head, changed: new Set() };
    states.set(scope, state);
    logger.debug('memory scope read in full for its first snapshot', { scope, facts: factCount(view), hadSnapshot: opened.snapshot !== undefined });
    index.saveSnapshot(scope, scopeTag(scope), opened.head, encodeScopeView(view));
    return view;
  }

  async function currentPersisted(index: PersistedMemoryIndex, scope: string, state: ScopeState | undefined): Promise<ScopeView> {
    if (state?.seq === undefined) return openPersisted(index, scope);
    const journal = await index.changesSince(scopeTag(scope), state.seq);
    // Another process saved a snapshot and dropped journal entries this view had not applied yet.
    if (journal.prunedThrough > state.seq) return openPersisted(index, scope);
    apply(state, journal.changes);
    state.seq = journal.seq;
    snapshotIfDue(index, state);
    return state.view;
  }

  async function current(scope: string): Promise<ScopeView> {
    const state = states.get(scope);
    if (persisted) {
      try {
        return await currentPersisted(persisted, scope, state);
      } catch (error) {
        logger.warn('memory index unavailable: scopes are read in full from now on', { location: persisted.location, error });
        persisted = undefined;
        states.clear();
        return currentByRevision(scope, undefined);
      }
    }
    return currentByRevision(scope, state);
  }

  const withScope = <T>(scope: string, task: (view: ScopeView) => Promise<T>): Promise<T> => lock.run(scope, async () => task(await current(scope)));

  return {
    facts,
    withScope,
    load: (scope) => withScope(scope, async (view) => view),
    async fact(view, id) {
      const known = view.facts.get(id);
      if (known) return known;
      if (!hasFact(view, id)) return undefined;
      const epoch = view.epoch;
      const fact = await facts.get(id);
      if (!fact || fact.scope !== view.scope) return undefined;
      // Cached only if the view did not change meanwhile (else the read could be older than what it knows).
      if (view.epoch === epoch) view.facts.set(id, fact);
      return fact;
    },
    put: putFact,
    remove: removeFact,
    async touch(view) {
      // With a persisted index the journal says what changed; the token is for processes that read in full.
      const revision = randomBytes(6).toString('hex');
      await revisions.set(scopeTag(view.scope), revision);
      const state = states.get(view.scope);
      if (state?.view === view && state.seq === undefined) state.revision = revision;
    },
    newId(scope) {
      return `${scopeTag(scope)}-${randomBytes(4).toString('hex')}`;
    },
  };
}
