/**
 * Keeps each memory scope's view current; tasks on a scope run one at a time. Two ways to know a scope:
 * - with a persisted index (SQLite): `persisted-scopes.ts` — a snapshot plus the journal after it,
 *   and the journal again before every task;
 * - without (memory://, Redis, …): read every fact of the scope, and again whenever its revision
 *   token (changed by every write) is not the one this process last saw.
 * A persisted index that fails is logged and left for the rest of the process.
 */
import { createHash, randomBytes } from 'node:crypto';
import { silentLogger, type Logger } from '../logger.js';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import type { KeyValueNamespace } from '../store/key-value-namespace.js';
import type { Store } from '../store/open-store.js';
import type { MemoryFact } from './memory-fact.js';
import type { PersistedMemoryIndex } from './persisted-memory-index.js';
import { createPersistedScopes, type PersistedScopes } from './persisted-scopes.js';
import { createScopeView, hasFact, putFact, removeFact, type ScopeView } from './scope-view.js';

export type { ScopeView } from './scope-view.js';

export interface ScopeCacheOptions {
  persisted?: PersistedMemoryIndex;
  logger?: Logger;
  /** Facts changed since the last snapshot before the next (default: 1 % of the scope, 100 to 1,000). */
  snapshotAfterChanges?: number;
}

export interface ScopeCache {
  readonly facts: KeyValueNamespace<MemoryFact>;
  /** Runs `task` on the current views of `scopes`, holding each scope's turn (every write is such a task). */
  withScopes<T>(scopes: readonly string[], task: (views: ScopeView[]) => Promise<T>): Promise<T>;
  withScope<T>(scope: string, task: (view: ScopeView) => Promise<T>): Promise<T>;
  /** The scope's current view. */
  load(scope: string): Promise<ScopeView>;
  /** Facts of the view by id: from the view, else read from the store together (undefined when gone). */
  factsOf(view: ScopeView, ids: readonly string[]): Promise<(MemoryFact | undefined)[]>;
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

/** Creates the cache over the `memory` and `memory-revisions` namespaces (and the persisted index, if any). */
export function createScopeCache(store: Store, options: ScopeCacheOptions = {}): ScopeCache {
  const facts = store.namespace<MemoryFact>('memory');
  const revisions = store.namespace<string>('memory-revisions');
  const logger = options.logger ?? silentLogger;
  /** Views read in full, with the revision token they were read at. */
  const readInFull = new Map<string, { view: ScopeView; revision: string | undefined }>();
  const lock = createKeyedMutex();

  async function readAll(scope: string): Promise<ScopeView> {
    const view = createScopeView(scope);
    for await (const [, fact] of facts.entries(`${scopeTag(scope)}-`)) {
      // Different scopes can share a tag; the fact's own scope decides.
      if (fact.scope === scope) putFact(view, fact);
    }
    return view;
  }

  // An index over another database than the store would never hear of the store's writes.
  const index = options.persisted?.location === store.location ? options.persisted : undefined;
  if (options.persisted && !index) {
    logger.warn('memory index ignored: it is not over the store', { index: options.persisted.location, store: store.location });
  }
  let persisted: { index: PersistedMemoryIndex; scopes: PersistedScopes } | undefined = index && {
    index,
    scopes: createPersistedScopes({ index, readAll, tagOf: scopeTag, logger, snapshotAfterChanges: options.snapshotAfterChanges }),
  };

  function disablePersisted(index: PersistedMemoryIndex, error: unknown): void {
    if (persisted?.index !== index) return;
    logger.warn('memory index unavailable: scopes are read in full from now on', { location: index.location, error });
    persisted = undefined;
  }

  async function currentByRevision(scope: string): Promise<ScopeView> {
    const revision = await revisions.get(scopeTag(scope));
    const known = readInFull.get(scope);
    if (known && known.revision === revision) return known.view;
    const view = await readAll(scope);
    readInFull.set(scope, { view, revision });
    return view;
  }

  async function current(scopes: readonly string[]): Promise<ScopeView[]> {
    const used = persisted;
    if (used) {
      try {
        return await used.scopes.current(scopes);
      } catch (error) {
        disablePersisted(used.index, error);
      }
    }
    return Promise.all(scopes.map(currentByRevision));
  }

  /** Reads the facts missing from a view in one statement when the persisted index can, else one by one. */
  async function readMissing(ids: readonly string[]): Promise<Map<string, MemoryFact>> {
    const used = persisted;
    if (used) {
      try {
        return await used.index.readFacts(ids);
      } catch (error) {
        disablePersisted(used.index, error);
      }
    }
    const read = await Promise.all(ids.map((id) => facts.get(id)));
    return new Map(read.flatMap((fact, position) => (fact ? [[ids[position]!, fact] as const] : [])));
  }

  function withScopes<T>(scopes: readonly string[], task: (views: ScopeView[]) => Promise<T>): Promise<T> {
    // Turns are taken in one order (sorted), so two tasks on the same scopes never wait on each other.
    const ordered = [...new Set(scopes)].sort();
    const run = (position: number): Promise<T> =>
      position < ordered.length ? lock.run(ordered[position]!, () => run(position + 1)) : current(scopes).then(task);
    // Snapshots that became due are made once the task has answered.
    return run(0).finally(() => persisted?.scopes.saveDue());
  }

  return {
    facts,
    withScopes,
    withScope: (scope, task) => withScopes([scope], ([view]) => task(view!)),
    load: (scope) => withScopes([scope], async ([view]) => view!),
    async factsOf(view, ids) {
      const missing = ids.filter((id) => !view.facts.has(id) && hasFact(view, id));
      const epoch = view.epoch;
      const read = missing.length > 0 ? await readMissing(missing) : new Map<string, MemoryFact>();
      return ids.map((id) => {
        const known = view.facts.get(id);
        if (known) return known;
        const fact = read.get(id);
        if (!fact || fact.scope !== view.scope) return undefined;
        // Cached only if the view did not change meanwhile (else the read could be older than what it knows).
        if (view.epoch === epoch) view.facts.set(id, fact);
        return fact;
      });
    },
    put: putFact,
    remove: removeFact,
    async touch(view) {
      // With a persisted index the journal says what changed; the token is for processes that read in full.
      const revision = randomBytes(6).toString('hex');
      await revisions.set(scopeTag(view.scope), revision);
      const known = readInFull.get(view.scope);
      if (known?.view === view) known.revision = revision;
    },
    newId(scope) {
      return `${scopeTag(scope)}-${randomBytes(4).toString('hex')}`;
    },
  };
}
