/**
 * Long-term memory: facts per scope (a workspace, or global) in the `memory` namespace, found with
 * BM25 and put into prompts. Retrieval never filters by author (design §6.3): whatever any agent
 * saved reaches every character's later prompts in that scope.
 */
import { TsukaError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { MemoryContextSource } from './memory-port.js';
import type { Store } from '../store/open-store.js';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import { documentFrequency, documentsWithTerm, searchBm25 } from './bm25.js';
import { deriveSummary, shortenToSummary } from './fact-summary.js';
import { formatMemoryContext } from './memory-context.js';
import { GLOBAL_MEMORY_SCOPE, type MemoryFact, type MemoryKind } from './memory-fact.js';
import { createScopeCache, type ScopeView } from './memory-scope-cache.js';
import { chooseEvictions, retentionScore } from './retention.js';
import { analyze, tokenize } from './text-normalize.js';

/** Default cap on facts per scope (`memoryMaxFacts`). */
export const MEMORY_MAX_FACTS_PER_SCOPE = 200;
/** Longest content a fact may hold. */
export const MEMORY_CONTENT_MAX_CHARS = 4_000;
/** Token-set overlap (Jaccard) at which two facts count as the same. */
const DUPLICATE_OVERLAP = 0.9;
const DEFAULT_RECALL_LIMIT = 5;
const CONTEXT_CANDIDATES = 12;

export interface SaveFactInput {
  content: string;
  summary?: string;
  kind?: MemoryKind;
  scope: string;
  tags?: string[];
  author: string;
  pinned?: boolean;
}

export type FactPatch = Partial<Pick<MemoryFact, 'content' | 'summary' | 'kind' | 'tags' | 'pinned'>>;

export interface MemoryStore extends MemoryContextSource {
  /** Saves a fact, or merges it into an equal one in the same scope (`merged: true`). */
  save(input: SaveFactInput): Promise<{ fact: MemoryFact; merged: boolean }>;
  /** Best matches in `scope` and in the global scope; an empty query lists the most valuable facts. */
  recall(query: string, options: { scope: string; limit?: number }): Promise<MemoryFact[]>;
  /** Every fact of one scope, newest first. */
  list(scope: string): Promise<MemoryFact[]>;
  get(id: string): Promise<MemoryFact | undefined>;
  update(id: string, patch: FactPatch): Promise<MemoryFact | undefined>;
  forget(id: string): Promise<MemoryFact | undefined>;
  pin(id: string): Promise<MemoryFact | undefined>;
  unpin(id: string): Promise<MemoryFact | undefined>;
}

/** Invalid input to the memory store (empty content, content too long). */
export class MemoryInputError extends TsukaError {
  constructor(message: string) {
    super('memory_input_invalid', message);
  }
}

function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function cleanTags(tags: readonly string[] | undefined): string[] {
  return [...new Set((tags ?? []).map((tag) => tag.trim().toLowerCase()).filter(Boolean))];
}

/** Creates the memory store over `store`. */
export function createMemoryStore(options: { store: Store; maxFactsPerScope?: number; now?: () => number; logger?: Logger }): MemoryStore {
  const now = options.now ?? Date.now;
  const maxFacts = options.maxFactsPerScope ?? MEMORY_MAX_FACTS_PER_SCOPE;
  const logger = options.logger ?? silentLogger;
  const cache = createScopeCache(options.store);
  const scopeLock = createKeyedMutex();

  function checkContent(content: string): string {
    const trimmed = content.trim();
    if (!trimmed) throw new MemoryInputError('A memory needs some content.');
    if (trimmed.length > MEMORY_CONTENT_MAX_CHARS) {
      throw new MemoryInputError(`A memory holds at most ${MEMORY_CONTENT_MAX_CHARS} characters; save a shorter note.`);
    }
    return trimmed;
  }

  /**
   * The fact of this scope equal to `content` (same words), or overlapping it by ≥ 90 % of their
   * terms. Exact, and without scoring the scope: overlap ≥ t needs ⌈t·|A|⌉ shared terms, so any
   * duplicate holds one of the |A| − ⌈t·|A|⌉ + 1 rarest terms of A; only their postings are read.
   */
  function findDuplicate(view: ScopeView, content: string): MemoryFact | undefined {
    const analysed = analyze(content);
    const exact = view.duplicates.get(analysed.duplicateKey);
    if (exact) return view.facts.get(exact);
    const terms = new Set(analysed.terms);
    if (terms.size < 3) return undefined;
    const needed = Math.ceil(DUPLICATE_OVERLAP * terms.size - 1e-9);
    const postingSize = (term: string): number => documentFrequency(view.index, term);
    const probes = [...terms].sort((a, b) => postingSize(a) - postingSize(b)).slice(0, terms.size - needed + 1);
    const checked = new Set<string>();
    let best: { id: string; overlap: number } | undefined;
    for (const term of probes) {
      for (const id of documentsWithTerm(view.index, term)) {
        if (checked.has(id)) continue;
        checked.add(id);
        const candidate = view.termSets.get(id);
        // Sizes alone rule most candidates out: |B| ≥ ⌈t·|A|⌉ and |B| ≤ |A| / t.
        if (!candidate || candidate.size < needed || candidate.size * DUPLICATE_OVERLAP > terms.size) continue;
        const score = overlap(terms, candidate);
        if (score >= DUPLICATE_OVERLAP && (!best || score > best.overlap || (score === best.overlap && id < best.id))) best = { id, overlap: score };
      }
    }
    return best ? view.facts.get(best.id) : undefined;
  }

  async function evict(view: ScopeView): Promise<void> {
    // Scoring every fact on every save is the cost of a full scope; below the limit there is nothing to do.
    if (view.facts.size <= maxFacts) return;
    const victims = chooseEvictions([...view.facts.values()], maxFacts, now());
    for (const victim of victims) {
      await cache.facts.delete(victim.id);
      cache.remove(view, victim.id);
    }
    if (victims.length > 0) logger.debug('memory evicted facts', { scope: view.scope, count: victims.length });
    if (view.facts.size > maxFacts) logger.warn('memory scope over its limit: every remaining fact is pinned', { scope: view.scope });
  }

  /**
   * Applies `fn` to the stored fact under its scope's lock (every write of this process to a scope
   * holds that lock, so none is lost).
   */
  async function change(id: string, fn: (fact: MemoryFact) => MemoryFact): Promise<MemoryFact | undefined> {
    const scope = (await cache.facts.get(id))?.scope;
    if (scope === undefined) return undefined;
    return scopeLock.run(scope, async () => {
      const current = await cache.facts.get(id);
      if (!current) return undefined;
      const next = fn(current);
      await cache.facts.set(id, next);
      const view = await cache.load(scope);
      cache.put(view, next);
      await cache.touch(view);
      return next;
    });
  }

  /**
   * Counts a use of each fact (hits, last used), which keeps it from eviction. Works from the scope's
   * view, current as of its revision check, and writes the facts of a scope together.
   */
  async function markUsed(facts: readonly MemoryFact[]): Promise<MemoryFact[]> {
    const byScope = new Map<string, MemoryFact[]>();
    for (const fact of facts) byScope.set(fact.scope, [...(byScope.get(fact.scope) ?? []), fact]);
    const used = new Map<string, MemoryFact>();
    await Promise.all(
      [...byScope].map(([scope, scopeFacts]) =>
        scopeLock.run(scope, async () => {
          const view = await cache.load(scope);
          const time = now();
          const writes = scopeFacts.flatMap((fact) => {
            const current = view.facts.get(fact.id);
            if (!current) return [];
            const next = { ...current, hits: current.hits + 1, lastUsedAt: time };
            cache.refresh(view, next);
            used.set(next.id, next);
            return [cache.facts.set(next.id, next)];
          });
          await Promise.all(writes);
        }),
      ),
    );
    return facts.map((fact) => used.get(fact.id) ?? fact);
  }

  async function search(query: string, scope: string, limit: number): Promise<MemoryFact[]> {
    const scopes = scope === GLOBAL_MEMORY_SCOPE ? [scope] : [scope, GLOBAL_MEMORY_SCOPE];
    const views = await Promise.all(scopes.map((name) => cache.load(name)));
    const terms = tokenize(query);
    if (terms.length === 0) {
      const time = now();
      return views
        .flatMap((view) => [...view.facts.values()])
        .sort((a, b) => Number(b.pinned) - Number(a.pinned) || retentionScore(b, time) - retentionScore(a, time))
        .slice(0, limit);
    }
    const hits = searchBm25(
      views.map((view) => view.index),
      terms,
      limit,
    );
    return hits.flatMap((hit) => {
      const fact = views.find((view) => view.facts.has(hit.id))?.facts.get(hit.id);
      return fact ? [fact] : [];
    });
  }

  return {
    async save(input) {
      const content = checkContent(input.content);
      const tags = cleanTags(input.tags);
      return scopeLock.run(input.scope, async () => {
        const view = await cache.load(input.scope);
        const time = now();
        const duplicate = findDuplicate(view, content);
        if (duplicate) {
          const merged = await cache.facts.update(duplicate.id, (current) => {
            const base = current ?? duplicate;
            return {
              ...base,
              kind: base.kind === 'run' && input.kind && input.kind !== 'run' ? input.kind : base.kind,
              tags: cleanTags([...base.tags, ...tags]),
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
          summary: input.summary?.trim() ? shortenToSummary(input.summary) : deriveSummary(content),
          kind: input.kind ?? 'fact',
          scope: input.scope,
          tags,
          pinned: input.pinned === true,
          hits: 0,
          createdAt: time,
          lastUsedAt: time,
          author: input.author,
        };
        await cache.facts.set(fact.id, fact);
        cache.put(view, fact);
        await evict(view);
        await cache.touch(view);
        return { fact: view.facts.get(fact.id) ?? fact, merged: false };
      });
    },

    async recall(query, recallOptions) {
      const found = await search(query, recallOptions.scope, recallOptions.limit ?? DEFAULT_RECALL_LIMIT);
      return markUsed(found);
    },

    async list(scope) {
      const view = await cache.load(scope);
      return [...view.facts.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    },

    get: (id) => cache.facts.get(id),

    update(id, patch) {
      return change(id, (current) => {
        const next: MemoryFact = { ...current };
        if (patch.content !== undefined) {
          next.content = checkContent(patch.content);
          // A summary that was derived follows the new content; one written by hand stays.
          if (patch.summary === undefined && current.summary === deriveSummary(current.content)) {
            next.summary = deriveSummary(next.content);
          }
        }
        if (patch.summary !== undefined) next.summary = shortenToSummary(patch.summary) || deriveSummary(next.content);
        if (patch.kind !== undefined) next.kind = patch.kind;
        if (patch.tags !== undefined) next.tags = cleanTags(patch.tags);
        if (patch.pinned !== undefined) next.pinned = patch.pinned;
        return next;
      });
    },

    async forget(id) {
      const stored = await cache.facts.get(id);
      if (!stored) return undefined;
      return scopeLock.run(stored.scope, async () => {
        const view = await cache.load(stored.scope);
        const deleted = await cache.facts.delete(id);
        cache.remove(view, id);
        await cache.touch(view);
        return deleted ? stored : undefined;
      });
    },

    pin: (id) => change(id, (current) => ({ ...current, pinned: true })),
    unpin: (id) => change(id, (current) => ({ ...current, pinned: false })),

    async contextFor(query, contextOptions) {
      const scopes = contextOptions.scope === GLOBAL_MEMORY_SCOPE ? [GLOBAL_MEMORY_SCOPE] : [contextOptions.scope, GLOBAL_MEMORY_SCOPE];
      const views = await Promise.all(scopes.map((name) => cache.load(name)));
      const pinned = views.flatMap((view) => [...view.facts.values()].filter((fact) => fact.pinned));
      const relevant = (await search(query, contextOptions.scope, CONTEXT_CANDIDATES)).filter((fact) => !fact.pinned);
      const { text, included } = formatMemoryContext([...pinned, ...relevant], contextOptions.budgetChars);
      await markUsed(included.filter((fact) => !fact.pinned));
      return text;
    },
  };
}
