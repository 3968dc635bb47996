/**
 * Retention score: how much a fact is worth keeping when its scope is over the limit. Pure.
 * score = kind weight × 2^(−age / half-life of its kind) × (1 + log2(1 + hits)), age from last use.
 */
import type { MemoryFact, MemoryKind } from './memory-fact.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const RETENTION_KIND_WEIGHT: Record<MemoryKind, number> = { decision: 1, lesson: 0.9, fact: 0.8, run: 0.3 };
export const RETENTION_HALF_LIFE_MS: Record<MemoryKind, number> = {
  decision: 180 * DAY_MS,
  lesson: 120 * DAY_MS,
  fact: 60 * DAY_MS,
  run: 7 * DAY_MS,
};

/** The retention score of `fact` at time `now` (higher is kept longer). */
export function retentionScore(fact: Pick<MemoryFact, 'kind' | 'hits' | 'lastUsedAt' | 'createdAt'>, now: number): number {
  const age = Math.max(0, now - Math.max(fact.lastUsedAt, fact.createdAt));
  const recency = 2 ** (-age / RETENTION_HALF_LIFE_MS[fact.kind]);
  return RETENTION_KIND_WEIGHT[fact.kind] * recency * (1 + Math.log2(1 + Math.max(0, fact.hits)));
}

/**
 * Which facts to drop so that at most `maxFacts` remain: unpinned `run` facts first, then the
 * lowest retention scores; pinned facts never (so the result may leave more than `maxFacts`).
 */
export function chooseEvictions<T extends Pick<MemoryFact, 'pinned' | 'kind' | 'hits' | 'lastUsedAt' | 'createdAt'>>(
  facts: readonly T[],
  maxFacts: number,
  now: number,
): T[] {
  const excess = facts.length - maxFacts;
  if (excess <= 0) return [];
  const candidates = facts
    .filter((fact) => !fact.pinned)
    .map((fact) => ({ fact, score: retentionScore(fact, now) }))
    .sort((a, b) => {
      const runFirst = Number(b.fact.kind === 'run') - Number(a.fact.kind === 'run');
      return runFirst || a.score - b.score || a.fact.createdAt - b.fact.createdAt;
    });
  return candidates.slice(0, excess).map((candidate) => candidate.fact);
}
