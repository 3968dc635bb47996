/**
 * The table that closes a /goal run (design §2.4): per agent, output tokens, peak context, total
 * tokens, time and speed, in a code block so the columns line up in chat.
 */

/** One agent's numbers (or one step's; see `mergeStatsByAgent`). */
export interface GoalStatsRow {
  agent: string;
  outputTokens: number;
  /** The largest prompt the agent sent in one model call. */
  peakContextTokens: number;
  /** Prompt plus output tokens over all its model calls. */
  totalTokens: number;
  durationMs: number;
  /** Time inside model calls; tokens/s is output tokens ÷ this (wall time when unknown). */
  modelTimeMs?: number;
}

const HEADERS = ['agent', 'output tokens', 'peak context', 'total tokens', 'time', 'tokens/s'] as const;

/**
 * The fixed-width table with a total row. The total time is the sum of the rows unless
 * `wallClockMs` is given (parallel steps overlap, so the goal may have taken less).
 */
export function formatStatsTable(rows: readonly GoalStatsRow[], options: { wallClockMs?: number } = {}): string {
  const totalOutput = sum(rows, (row) => row.outputTokens);
  const totalDuration = options.wallClockMs ?? sum(rows, (row) => row.durationMs);
  const total: GoalStatsRow = {
    agent: 'total',
    outputTokens: totalOutput,
    peakContextTokens: rows.reduce((peak, row) => Math.max(peak, row.peakContextTokens), 0),
    totalTokens: sum(rows, (row) => row.totalTokens),
    durationMs: totalDuration,
    modelTimeMs: sum(rows, (row) => row.modelTimeMs ?? row.durationMs),
  };
  const body = rows.map(cells);
  const footer = cells(total);
  const table = [[...HEADERS], ...body, footer];
  const widths = HEADERS.map((_, column) => Math.max(...table.map((line) => (line[column] ?? '').length)));
  const render = (line: readonly string[]): string =>
    line
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '─'.repeat(width)).join('  ');
  return ['```', render(table[0] as string[]), rule, ...body.map(render), rule, render(footer), '```'].join('\n');
}

/** One row per agent, in first-seen order: counts and times added, peak context the largest. */
export function mergeStatsByAgent(rows: readonly GoalStatsRow[]): GoalStatsRow[] {
  const merged = new Map<string, GoalStatsRow>();
  for (const row of rows) {
    const previous = merged.get(row.agent);
    merged.set(
      row.agent,
      previous
        ? {
            agent: row.agent,
            outputTokens: previous.outputTokens + row.outputTokens,
            peakContextTokens: Math.max(previous.peakContextTokens, row.peakContextTokens),
            totalTokens: previous.totalTokens + row.totalTokens,
            durationMs: previous.durationMs + row.durationMs,
            ...(previous.modelTimeMs !== undefined || row.modelTimeMs !== undefined
              ? { modelTimeMs: (previous.modelTimeMs ?? previous.durationMs) + (row.modelTimeMs ?? row.durationMs) }
              : {}),
          }
        : { ...row },
    );
  }
  return [...merged.values()];
}

/** `850 ms`, `12.3 s`, `4m 05s`. */
export function formatDuration(durationMs: number): string {
  if (durationMs < 1000) return `${Math.max(0, Math.round(durationMs))} ms`;
  if (durationMs < 60_000) return `${(durationMs / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(durationMs / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  return `${minutes}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
}

function cells(row: GoalStatsRow): string[] {
  const generationMs = row.modelTimeMs ?? row.durationMs;
  const speed = generationMs > 0 ? (row.outputTokens / (generationMs / 1000)).toFixed(1) : '—';
  return [row.agent, count(row.outputTokens), count(row.peakContextTokens), count(row.totalTokens), formatDuration(row.durationMs), speed];
}

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function sum(rows: readonly GoalStatsRow[], pick: (row: GoalStatsRow) => number): number {
  return rows.reduce((total, row) => total + pick(row), 0);
}
