import { describe, expect, it } from 'vitest';
import { formatDuration, formatStatsTable, mergeStatsByAgent } from '../../../../src/core/workflows/goal/goal-stats.js';

describe('formatStatsTable', () => {
  const rows = [
    { agent: 'geordi', outputTokens: 1200, peakContextTokens: 8000, totalTokens: 15_500, durationMs: 30_000 },
    { agent: 'worf', outputTokens: 300, peakContextTokens: 4000, totalTokens: 4300, durationMs: 1500 },
  ];

  it('renders a fixed-width table in a code block with a total row', () => {
    expect(formatStatsTable(rows)).toBe(
      [
        '```',
        'agent   output tokens  peak context  total tokens    time  tokens/s',
        '──────  ─────────────  ────────────  ────────────  ──────  ────────',
        'geordi          1,200         8,000        15,500  30.0 s      40.0',
        'worf              300         4,000         4,300   1.5 s     200.0',
        '──────  ─────────────  ────────────  ────────────  ──────  ────────',
        'total           1,500         8,000        19,800  31.5 s      47.6',
        '```',
      ].join('\n'),
    );
  });

  it('uses the wall-clock time for the total when given (parallel steps overlap); speed stays output over model time', () => {
    const total = formatStatsTable(rows, { wallClockMs: 30_000 }).split('\n').at(-2) ?? '';
    expect(total).toMatch(/^total\s+1,500\s+8,000\s+19,800\s+30\.0 s\s+47\.6$/);
  });

  it('reports tokens/s as generation speed: completion tokens over the time spent in model calls, not wall time', () => {
    // 40 s on the step, of which 10 s generating (the rest: a tool run and an approval wait).
    const table = formatStatsTable([
      { agent: 'geordi', outputTokens: 400, peakContextTokens: 900, totalTokens: 1300, durationMs: 40_000, modelTimeMs: 10_000 },
    ]);
    expect(table.split('\n')[3]).toMatch(/^geordi\s+400\s+900\s+1,300\s+40\.0 s\s+40\.0$/);
    expect(
      mergeStatsByAgent([
        { agent: 'geordi', outputTokens: 100, peakContextTokens: 1, totalTokens: 2, durationMs: 9000, modelTimeMs: 1000 },
        { agent: 'geordi', outputTokens: 100, peakContextTokens: 1, totalTokens: 2, durationMs: 9000, modelTimeMs: 3000 },
      ])[0]!.modelTimeMs,
    ).toBe(4000);
  });

  it('shows a dash for speed when no time was measured', () => {
    const line = formatStatsTable([{ agent: 'pike', outputTokens: 5, peakContextTokens: 1, totalTokens: 6, durationMs: 0 }]).split('\n')[3];
    expect(line?.trimEnd().endsWith('—')).toBe(true);
  });
});

describe('mergeStatsByAgent', () => {
  it('adds counts and times per agent and keeps the largest peak context', () => {
    const merged = mergeStatsByAgent([
      { agent: 'geordi', outputTokens: 10, peakContextTokens: 100, totalTokens: 110, durationMs: 1000 },
      { agent: 'worf', outputTokens: 1, peakContextTokens: 1, totalTokens: 2, durationMs: 1 },
      { agent: 'geordi', outputTokens: 5, peakContextTokens: 300, totalTokens: 305, durationMs: 500 },
    ]);
    expect(merged).toEqual([
      { agent: 'geordi', outputTokens: 15, peakContextTokens: 300, totalTokens: 415, durationMs: 1500 },
      { agent: 'worf', outputTokens: 1, peakContextTokens: 1, totalTokens: 2, durationMs: 1 },
    ]);
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [12_340, '12.3 s'],
    [245_000, '4m 05s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
