/**
 * Long-term memory: facts per scope (where they were said — a channel, a person's DM, the local
 * user — or shared) in the `memory` namespace, found with BM25 and put into prompts. A scope is
 * read together with the shared scopes, never with another conversation's. Retrieval never filters
 * by author (design §6.3): whatever any agent saved reaches every character's later prompts in that
 * scope. Text is masked (known secret values) before it is stored. With a persisted index (the
 * SQLite store) a scope opens from its snapshot; without, from a full read (`memory-scope-cache.ts`).
 */
import { silentLogger, type Logger } from '../logger.js';
import type { MemoryContextSource } from './memory-port.js';
import type { Store } from '../store/open-store.js';
import { searchBm25 } from './bm25.js';
import { deriveSummary } from './fact-summary.js';
import { createFactText } from './fact-text.js';
import { formatMemoryContext } from './memory-context.js';
import { findDuplicate } from './memory-duplicates.js';
import { SHARED_MEMORY_SCOPE, type MemoryFact, type MemoryKind } from './memory-fact.js';
import { createScopeCache, scopeTag, type ScopeView } from './memory-scope-cache.js';
import type { PersistedMemoryIndex } from './persisted-memory-index.js';
import { chooseEvictions, retentionScore } from './retention.js';
import { factCount, hasFact, pinnedIds, sketches } from './scope-view.js';
import { tokenize } from './text-normalize.js';

/** Default cap on facts per scope (`memoryMaxFacts`). */
export const MEMORY_MAX_FACTS_PER_SCOPE = 200;
const DEFAULT_RECALL_LIMIT = 5;
const CONTEXT_CANDIDATES = 12;

export interface SaveFactInput {
  content: string;
  summary?: string;
  kind?: MemoryKind;
  scope: string;
  tags?: string[];
  author: string;
  /** The platform user id of the person whose conversation saves it. */
  savedBy?: string;
  pinned?: boolean;
}

export type FactPatch = Partial<Pick<MemoryFact, 'content' | 'summary' | 'kind' | 'tags' | 'pinned'>>;

export interface MemoryStore extends MemoryContextSource {
  /** Saves a fact, or merges it into an equal one in the same scope (`merged: true`). */
  save(input: SaveFactInput): Promise<{ fact: MemoryFact; merged: boolean }>;
  /** Best matches in `scope` and in the shared scopes; an empty query lists the most valuable facts. */
  recall(query: string, options: { scope: string; limit?: number }): Promise<MemoryFact[]>;
  /** The scopes a conversation in `scope` reads: its own, then the shared ones. */
  visibleScopes(scope: string): string[];
  /** Every fact of one scope, newest first. */
  list(scope: string): Promise<MemoryFact[]>;
  get(id: string): Promise<MemoryFact | undefined>;
  update(id: string, patch: FactPatch): Promise<MemoryFact | undefined>;
  forget(id: string): Promise<MemoryFact | undefined>;
  pin(id: string): Promise<MemoryFact | undefined>;
  unpin(id: string): Promise<MemoryFact | undefined>;
  /** Moves a fact into `scope` (merged there with an equal fact); its new record, or undefined when not found. */
  moveTo(id: string, scope: string): Promise<MemoryFact | undefined>;
}

export interface MemoryStoreOptions {
  store: Store;
  maxFactsPerScope?: number;
  now?: () => number;
  logger?: Logger;
  /** Where scope indexes outlive the process (the SQLite store: `openMemoryIndexFor`); without, scopes are read in full. */
  index?: PersistedMemoryIndex;
  /** Facts changed before a new scope snapshot is saved (default: 1 % of the scope, 100 to 1,000). */
  snapshotAfterChanges?: number;
  /** Masks known secret values: content, summary and tags pass through it before they are stored. */
  maskSecrets?: (text: string) => string;
  /**
   * The scopes every conversation reads (default: `shared`); the upgrade adds the scopes of facts
   * saved before conversation scopes (workspace paths, `global`).
   */
  sharedScopes?: readonly string[];
}

const isFact = (fact: MemoryFact | undefined): fact is MemoryFact => fact !== undefined;

/** Creates the memory store over `store`. */
export function createMemoryStore(options: MemoryStoreOptions): MemoryStore {
  const now = options.now ?? Date.now;
  const maxFacts = options.maxFactsPerScope ?? MEMORY_MAX_FACTS_PER_SCOPE;
  const logger = options.logger ?? silentLogger;
  const cache = createScopeCache(options.store, { persisted: options.index, logger, snapshotAfterChanges: options.snapshotAfterChanges });
  const factText = createFactText(options.maskSecrets);
  const shared = [...new Set([SHARED_MEMORY_SCOPE, ...(options.sharedScopes ?? [])])];
  const scopesFor = (scope: string): string[] => (shared.includes(scope) ? [...shared] : [scope, ...shared]);

  async function evict(view: ScopeView): Promise<void> {
    // Scoring every fact on every save is the cost of a full scope; below the limit there is nothing to do.
    if (factCount(view) <= maxFacts) return;
    const victims = chooseEvictions(sketches(view), maxFacts, now());
    for (const victim of victims) {
      await cache.facts.delete(victim.id);
      cache.remove(view, victim.id);
    }
    if (victims.length > 0) logger.debug('memory evicted facts', { scope: view.scope, count: victims.length });
    if (factCount(view) > maxFacts) logger.warn('memory scope over its limit: every remaining fact is pinned', { scope: view.scope });
  }

  /** Applies `fn` to the stored fact as one task of its scope (every write of this process to a scope is one, so none is lost). */
  async function change(id: string, fn: (fact: MemoryFact) => MemoryFact): Promise<MemoryFact | undefined> {
    const scope = (await cache.facts.get(id))?.scope;
    if (scope === undefined) return undefined;
    return cache.withScope(scope, async (view) => {
      const current = await cache.facts.get(id);
      if (!current) return undefined;
      const next = fn(current);
      await cache.facts.set(id, next);
      cache.put(view, next);
      await cache.touch(view);
      return next;
    });
  }

  /**
   * Counts a use of each fact (hits, last used), which keeps it from eviction. Runs inside the task
   * that found them, which holds the turn of every scope in `views`.
   */
  async function recordUses(views: readonly ScopeView[], facts: readonly MemoryFact[]): Promise<MemoryFact[]> {
    const time = now();
    const used = new Map<string, MemoryFact>();
    const writes: Promise<void>[] = [];
    for (const view of views) {
      const ids = facts.filter((fact) => fact.scope === view.scope).map((fact) => fact.id);
      for (const current of await cache.factsOf(view, ids)) {
        if (!current) continue;
        const next = { ...current, hits: current.hits + 1, lastUsedAt: time };
        // The searchable text is unchanged: the view only updates the fact's columns.
        cache.put(view, next);
        used.set(next.id, next);
        writes.push(cache.facts.set(next.id, next));
      }
    }
    await Promise.all(writes);
    return facts.map((fact) => used.get(fact.id) ?? fact);
  }

  /** The ids worth most to keep, pinned first (what an empty query lists). */
  function mostValuable(views: readonly ScopeView[], limit: number): string[] {
    const time = now();
    return views
      .flatMap((view) => sketches(view).map((sketch) => ({ sketch, score: retentionScore(sketch, time) })))
      .sort((a, b) => Number(b.sketch.pinned) - Number(a.sketch.pinned) || b.score - a.score)
      .slice(0, limit)
      .map((ranked) => ranked.sketch.id);
  }

  async function search(views: readonly ScopeView[], query: string, limit: number): Promise<MemoryFact[]> {
    const terms = tokenize(query);
    const ids =
      terms.length === 0
        ? mostValuable(views, limit)
        : searchBm25(
            views.map((view) => view.index),
            terms,
            limit,
          ).map((hit) => hit.id);
    const found = await Promise.all(
      views.map((view) =>
        cache.factsOf(
          view,
          ids.filter((id) => hasFact(view, id)),
        ),
      ),
    );
    const byId = new Map(found.flat().flatMap((fact) => (fact ? [[fact.id, fact] as const] : [])));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  const memory: MemoryStore = {
    async save(input) {
      const content = factText.content(input.content);
      const tags = factText.tags(input.tags);
      return cache.withScope(input.scope, async (view) => {
        const time = now();
        const duplicate = await findDuplicate(view, content, async (id) => (await cache.factsOf(view, [id]))[0]);
        if (duplicate) {
          const merged = await cache.facts.update(duplicate.id, (current) => {
            const base = current ?? duplicate;
            return {
              ...base,
              // A record from before masking is masked when it is written again.
              content: factText.mask(base.content),
              summary: factText.mask(base.summary),
              kind: base.kind === 'run' && input.kind && input.kind !== 'run' ? input.kind : base.kind,
              tags: factText.tags([...base.tags, ...tags]),
              pinned: base.pinned || input.pinned === true,
              hits: base.hits + 1,
              lastUsedAt: time,
            };
          });
          cache.put(view, merged);
          await cache.touch(view);
          return { fact: merged, merged: true };
        }
        const fact: MemoryFact = {
          id: cache.newId(input.scope),
          content,
          summary: factText.summary(input.summary, content),
          kind: input.kind ?? 'fact',
          scope: input.scope,
          tags,
          pinned: input.pinned === true,
          hits: 0,
          createdAt: time,
          lastUsedAt: time,
          author: input.author,
          ...(input.savedBy ? { savedBy: input.savedBy } : {}),
        };
        await cache.facts.set(fact.id, fact);
        cache.put(view, fact);
        await evict(view);
        await cache.touch(view);
        return { fact, merged: false };
      });
    },

    recall(query, recallOptions) {
      return cache.withScopes(scopesFor(recallOptions.scope), async (views) =>
        recordUses(views, await search(views, query, recallOptions.limit ?? DEFAULT_RECALL_LIMIT)),
      );
    },

    async list(scope) {
      const view = await cache.load(scope);
      let facts = [...view.facts.values()];
      // A view opened from a snapshot holds only the facts read since: list from the store then.
      if (facts.length !== factCount(view)) {
        facts = [];
        for await (const [, fact] of cache.facts.entries(`${scopeTag(scope)}-`)) if (fact.scope === scope) facts.push(fact);
      }
      return facts.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    },

    get: (id) => cache.facts.get(id),

    update(id, patch) {
      return change(id, (current) => {
        const next: MemoryFact = { ...current };
        if (patch.content !== undefined) {
          next.content = factText.content(patch.content);
          // A summary that was derived follows the new content; one written by hand stays.
          if (patch.summary === undefined && current.summary === deriveSummary(current.content)) {
            next.summary = deriveSummary(next.content);
          }
        }
        if (patch.summary !== undefined) next.summary = factText.summary(patch.summary, next.content);
        if (patch.kind !== undefined) next.kind = patch.kind;
        if (patch.tags !== undefined) next.tags = factText.tags(patch.tags);
        if (patch.pinned !== undefined) next.pinned = patch.pinned;
        return next;
      });
    },

    async forget(id) {
      const stored = await cache.facts.get(id);
      if (!stored) return undefined;
      return cache.withScope(stored.scope, async (view) => {
        const deleted = await cache.facts.delete(id);
        cache.remove(view, id);
        await cache.touch(view);
        return deleted ? stored : undefined;
      });
    },

    pin: (id) => change(id, (current) => ({ ...current, pinned: true })),
    unpin: (id) => change(id, (current) => ({ ...current, pinned: false })),

    visibleScopes: scopesFor,

    async moveTo(id, scope) {
      const stored = await cache.facts.get(id);
      if (!stored || stored.scope === scope) return stored;
      // Saved in the new scope before it leaves the old: a failure between the two leaves a copy, never nothing.
      const { fact } = await memory.save({ ...stored, scope });
      await memory.forget(id);
      return fact;
    },

    contextFor(query, contextOptions) {
      return cache.withScopes(scopesFor(contextOptions.scope), async (views) => {
        const pinned = (await Promise.all(views.map((view) => cache.factsOf(view, pinnedIds(view))))).flat().filter(isFact);
        const relevant = (await search(views, query, CONTEXT_CANDIDATES)).filter((fact) => !fact.pinned);
        const { text, included } = formatMemoryContext([...pinned, ...relevant], contextOptions.budgetChars);
        await recordUses(
          views,
          included.filter((fact) => !fact.pinned),
        );
        return text;
      });
    },
  };
  return memory;
}
