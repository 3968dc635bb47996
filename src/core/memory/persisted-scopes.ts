/**
 * Scope views kept current through a persisted index: a scope opens from its snapshot plus the
 * journal after it (or, without a usable snapshot, from a full read that saves the first one), and
 * before every task the journal after each view's position is read — for all the task's scopes in
 * one read — and applied: every process's writes, and only those, are read again. A new snapshot is
 * saved once enough facts changed since the last one (`snapshotAfterChanges`). Errors propagate: the
 * caller falls back.
 */
import type { Logger } from '../logger.js';
import { decodeScopeView, encodeScopeView } from './index-snapshot.js';
import type { FactChange, PersistedMemoryIndex } from './persisted-memory-index.js';
import type { MemoryFact } from './memory-fact.js';
import { applyChanges, factCount, type ScopeView } from './scope-view.js';

/** Facts indexed anew since the last snapshot before a new one is saved: at least this many… */
const SNAPSHOT_MIN_CHANGES = 100;
/** …or this share of the scope, up to `SNAPSHOT_MAX_CHANGES`. */
const SNAPSHOT_CHANGE_SHARE = 0.01;
const SNAPSHOT_MAX_CHANGES = 1_000;

/**
 * How many facts of a scope of `size` may be indexed anew (rewritten, added) before a new snapshot
 * is saved: what a fresh process may have to analyse and index after opening the last one. Changes
 * that leave the text alone (a use counted, a pin) cost it a tenth as much, and count so.
 */
export function snapshotAfterChanges(size: number): number {
  return Math.min(SNAPSHOT_MAX_CHANGES, Math.max(SNAPSHOT_MIN_CHANGES, Math.ceil(size * SNAPSHOT_CHANGE_SHARE)));
}

export interface PersistedScopes {
  /** The current views of `scopes`, in order. */
  current(scopes: readonly string[]): Promise<ScopeView[]>;
  /** Hands the snapshots that became due to the index; call when a task is done (they are made after it). */
  saveDue(): void;
}

interface ScopeState {
  view: ScopeView;
  /** The journal position the view has applied. */
  seq: number;
  /** Facts changed in any way since the last snapshot (those indexed anew are in `view.reindexed`). */
  changed: Set<string>;
  /** A snapshot is waiting to be made. */
  saving?: boolean;
}

/** Changes that leave a fact's text alone weigh this much less than those indexed anew. */
const UNINDEXED_CHANGE_DISCOUNT = 10;

export function createPersistedScopes(options: {
  index: PersistedMemoryIndex;
  /** Reads every fact of a scope into a new view. */
  readAll: (scope: string) => Promise<ScopeView>;
  tagOf: (scope: string) => string;
  logger: Logger;
  snapshotAfterChanges?: number;
}): PersistedScopes {
  const { index, logger, tagOf } = options;
  const states = new Map<string, ScopeState>();
  const due = new Set<ScopeState>();

  function apply(state: ScopeState, changes: readonly FactChange[]): void {
    const prefix = `${tagOf(state.view.scope)}-`;
    const stored: MemoryFact[] = [];
    const gone: string[] = [];
    for (const { id, fact } of changes) {
      // What a full read would find: the scope's own facts, under ids in its key range.
      if (fact && fact.scope === state.view.scope && id.startsWith(prefix)) stored.push(fact);
      else gone.push(id);
      state.changed.add(id);
    }
    applyChanges(state.view, stored, gone);
  }

  function snapshotIfDue(state: ScopeState): void {
    const after = options.snapshotAfterChanges ?? snapshotAfterChanges(factCount(state.view));
    const reindexed = state.view.reindexed?.size ?? 0;
    if (reindexed < after && state.changed.size < after * UNINDEXED_CHANGE_DISCOUNT) return;
    due.add(state);
  }

  function save(state: ScopeState): void {
    if (state.saving) return;
    state.saving = true;
    // Made when the index gets to it: the view and its position agree at any point between tasks.
    index.saveSnapshot(state.view.scope, tagOf(state.view.scope), () => {
      state.saving = false;
      const data = encodeScopeView(state.view);
      state.changed.clear();
      state.view.reindexed = new Set();
      return { seq: state.seq, data };
    });
  }

  async function open(scope: string): Promise<ScopeView> {
    const opened = await index.open(scope, tagOf(scope));
    const fromSnapshot = opened.snapshot && decodeScopeView(scope, opened.snapshot.data);
    if (opened.snapshot && fromSnapshot) {
      fromSnapshot.reindexed = new Set();
      const state: ScopeState = { view: fromSnapshot, seq: opened.snapshot.seq, changed: new Set() };
      apply(state, opened.snapshot.changes);
      states.set(scope, state);
      logger.debug('memory scope opened from its snapshot', { scope, facts: factCount(fromSnapshot), changes: opened.snapshot.changes.length });
      snapshotIfDue(state);
      return fromSnapshot;
    }
    // The full read starts after `head`: whatever it misses of later writes, the journal after `head` holds.
    const view = await options.readAll(scope);
    const state: ScopeState = { view, seq: opened.head, changed: new Set() };
    states.set(scope, state);
    logger.debug('memory scope read in full for its first snapshot', { scope, facts: factCount(view), hadSnapshot: opened.snapshot !== undefined });
    due.add(state);
    return view;
  }

  return {
    async current(scopes) {
      const known = scopes.filter((scope) => states.has(scope));
      const journals = known.length > 0 ? await index.changesSince(known.map((scope) => ({ tag: tagOf(scope), seq: states.get(scope)!.seq }))) : [];
      const views = new Map<string, ScopeView>();
      known.forEach((scope, position) => {
        const state = states.get(scope)!;
        const journal = journals[position]!;
        // Another process saved a snapshot and dropped journal entries this view had not applied: open again.
        if (journal.prunedThrough > state.seq) return;
        apply(state, journal.changes);
        state.seq = journal.seq;
        snapshotIfDue(state);
        views.set(scope, state.view);
      });
      for (const scope of scopes) if (!views.has(scope)) views.set(scope, await open(scope));
      return scopes.map((scope) => views.get(scope)!);
    },
    saveDue() {
      for (const state of due) save(state);
      due.clear();
    },
  };
}
