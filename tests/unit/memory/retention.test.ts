import { describe, expect, it } from 'vitest';
import type { MemoryFact, MemoryKind } from '../../../src/core/memory/memory-fact.js';
import { chooseEvictions, retentionScore } from '../../../src/core/memory/retention.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_000 * DAY;

function fact(id: string, kind: MemoryKind, options: Partial<MemoryFact> = {}): MemoryFact {
  return {
    id,
    content: id,
    summary: id,
    kind,
    scope: '/ws',
    tags: [],
    pinned: false,
    hits: 0,
    createdAt: NOW - DAY,
    lastUsedAt: NOW - DAY,
    author: 'geordi',
    ...options,
  };
}

describe('retention', () => {
  it('weighs kind, recency and hits', () => {
    expect(retentionScore(fact('d', 'decision'), NOW)).toBeGreaterThan(retentionScore(fact('f', 'fact'), NOW));
    expect(retentionScore(fact('new', 'fact'), NOW)).toBeGreaterThan(
      retentionScore(fact('old', 'fact', { lastUsedAt: NOW - 120 * DAY, createdAt: NOW - 120 * DAY }), NOW),
    );
    expect(retentionScore(fact('used', 'fact', { hits: 8 }), NOW)).toBeGreaterThan(retentionScore(fact('f', 'fact'), NOW));
  });

  it('evicts unpinned run facts first, even when they are fresher', () => {
    const facts = [fact('old-fact', 'fact', { lastUsedAt: NOW - 300 * DAY }), fact('fresh-run', 'run', { lastUsedAt: NOW }), fact('decision', 'decision')];
    expect(chooseEvictions(facts, 2, NOW).map((victim) => victim.id)).toEqual(['fresh-run']);
  });

  it('then drops the lowest scores, and never a pinned fact', () => {
    const facts = [
      fact('pinned-run', 'run', { pinned: true }),
      fact('pinned-old', 'fact', { pinned: true, lastUsedAt: NOW - 900 * DAY }),
      fact('stale', 'fact', { lastUsedAt: NOW - 200 * DAY }),
      fact('fresh', 'fact'),
      fact('decision', 'decision'),
    ];
    expect(chooseEvictions(facts, 3, NOW).map((victim) => victim.id)).toEqual(['stale', 'fresh']);
    expect(chooseEvictions(facts, 0, NOW).map((victim) => victim.id)).not.toContain('pinned-run');
    expect(chooseEvictions(facts, 5, NOW)).toEqual([]);
  });
});
