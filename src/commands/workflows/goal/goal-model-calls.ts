/**
 * The /goal run's own model calls — the planner and the step summaries — which belong to no agent
 * turn: the planner call itself, and a meter that turns their usage into rows of the stats table.
 */
import { AbortedError, ModelError, TsukaError } from '../../../core/errors.js';
import type { ChatMessage, LanguageModel, ModelUsage, ReasoningEffort } from '../../../core/model/language-model.js';
import type { GoalStatsRow } from '../../../core/workflows/goal/goal-stats.js';

/** The planner writes a plan, not an essay. */
const PLANNER_MAX_OUTPUT_TOKENS = 1_200;

/** Stats-table row of the planner call; parenthesised so it cannot be mistaken for a character. */
export const PLANNER_ROW = '(planner)';
/** Stats-table row of the calls that condense long step outputs. */
export const SUMMARIES_ROW = '(summaries)';

/** Adds up the usage and time of calls made outside agent turns, one row per kind of call. */
export interface ModelCallMeter {
  add(row: string, usage: ModelUsage | undefined, durationMs: number): void;
  /** Rows in first-recorded order; a kind never called has no row. */
  rows(): GoalStatsRow[];
  durationOf(row: string): number;
}

export function createModelCallMeter(): ModelCallMeter {
  const byRow = new Map<string, GoalStatsRow>();
  return {
    add(row, usage, durationMs) {
      const entry = byRow.get(row) ?? { agent: row, outputTokens: 0, peakContextTokens: 0, totalTokens: 0, durationMs: 0 };
      entry.outputTokens += usage?.completionTokens ?? 0;
      entry.peakContextTokens = Math.max(entry.peakContextTokens, usage?.promptTokens ?? 0);
      entry.totalTokens += (usage?.promptTokens ?? 0) + (usage?.completionTokens ?? 0);
      entry.durationMs += durationMs;
      byRow.set(row, entry);
    },
    rows: () => [...byRow.values()].map((row) => ({ ...row })),
    durationOf: (row) => byRow.get(row)?.durationMs ?? 0,
  };
}

/** The planner's one model call, without tools; its usage and time go to `meter` even when it fails. */
export async function planWithModel(
  model: LanguageModel,
  prompt: { system: string; user: string },
  signal: AbortSignal,
  meter: ModelCallMeter,
  effort?: ReasoningEffort,
): Promise<string> {
  const messages: ChatMessage[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  let text = '';
  let usage: ModelUsage | undefined;
  const startedAt = Date.now();
  try {
    for await (const part of model.stream({ messages, maxOutputTokens: PLANNER_MAX_OUTPUT_TOKENS, ...(effort ? { effort } : {}), signal })) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'usage') usage = part.usage;
    }
  } catch (error) {
    if (error instanceof TsukaError) throw error;
    if (signal.aborted) throw new AbortedError(undefined, { cause: error });
    throw new ModelError('The planner could not reach the model.', { cause: error });
  } finally {
    meter.add(PLANNER_ROW, usage, Date.now() - startedAt);
  }
  if (signal.aborted) throw new AbortedError();
  return text;
}
