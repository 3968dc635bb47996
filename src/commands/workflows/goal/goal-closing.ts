/** How a /goal run ends in chat: its status, headline, facts and the stats table (planner, steps, reviews, summaries). */
import { formatStatsTable, mergeStatsByAgent, type GoalStatsRow } from '../../../core/workflows/goal/goal-stats.js';
import type { GoalOutcome } from '../../../core/workflows/goal/run-goal.js';
import { PLANNER_ROW, SUMMARIES_ROW, type ModelCallMeter } from './goal-model-calls.js';
import type { WorkflowFinish } from '../workflow-session.js';

export interface ClosingContext {
  reviewRows: GoalStatsRow[];
  modelCalls: ModelCallMeter;
}

// The outcome (status, headline, facts) and the stats table. A goal whose every attempted step failed
// is `failed` (as /team's "✖ … failed"); some failures leave it `completed`, with the count in the headline.
export function closing(context: ClosingContext, outcome: Exclude<GoalOutcome, { kind: 'trivial' | 'cancelled' }>): WorkflowFinish {
  const extraRows = context.modelCalls.rows();
  const planner = extraRows.filter((row) => row.agent === PLANNER_ROW);
  const summaries = extraRows.filter((row) => row.agent === SUMMARIES_ROW);
  const rows = mergeStatsByAgent([...planner, ...outcome.stats, ...context.reviewRows, ...summaries]);
  // The loop's clock starts after the plan; the planner's call ran before it, on its own.
  const wallClockMs = outcome.wallClockMs + context.modelCalls.durationOf(PLANNER_ROW);
  const explained = [
    ...planner.map(() => `${PLANNER_ROW} is the planning call`),
    ...summaries.map(() => `${SUMMARIES_ROW} the condensing of long step outputs`),
  ];
  const note = explained.length > 0 ? `\n${explained.join(', ')} — counted in the total row.` : '';
  const table = rows.length > 0 ? `\n${formatStatsTable(rows, { wallClockMs })}${note}` : '';
  const conflicts = outcome.merges.reduce((sum, merge) => sum + merge.conflicts.length, 0);
  const failed = outcome.failedSteps.length;
  // A finished parallel step whose copy was never merged did not change the workspace: not counted as done.
  const unmerged = new Set(outcome.unmergedSteps);
  const done = outcome.steps.filter((entry) => entry.result.ok !== false && !unmerged.has(entry.step.number)).length;
  const facts = [
    `${done} step(s) done`,
    ...(unmerged.size > 0
      ? [`${unmerged.size} finished step(s) not merged (${[...unmerged].map((number) => `#${number}`).join(', ')}): their changes are not in the workspace`]
      : []),
    ...(failed > 0 ? [`${failed} step(s) failed (${outcome.failedSteps.map((number) => `#${number}`).join(', ')})`] : []),
    ...(outcome.merges.length > 0 ? [`${outcome.merges.length} merge(s), ${conflicts} conflict(s)`] : []),
  ];
  const stats = rows.length > 0 ? { stats: goalStatsRecord(rows), chartRows: rows } : {};
  if (outcome.kind === 'stopped' && outcome.budgetSpent)
    return {
      status: 'stopped',
      headline: `💸 Goal stopped cleanly: ${outcome.budgetSpent}.`,
      summary: `${facts.join(' · ')}; the remaining steps did not run.${table}`,
      ...stats,
    };
  if (outcome.kind === 'stopped')
    return { status: 'stopped', headline: '⏹ Goal stopped.', summary: `${facts.join(' · ')}; unfinished parallel steps were not merged.${table}`, ...stats };
  if (failed > 0 && failed === outcome.attemptedSteps)
    return { status: 'failed', headline: '✖ Goal failed: every step failed.', summary: `${facts.join(' · ')}${table}`, ...stats };
  const headline = failed > 0 ? `⚠️ Goal finished with ${failed} failed step(s).` : '✅ Goal completed.';
  return { status: 'completed', headline, summary: `${facts.join(' · ')}${table}`, ...stats };
}

function goalStatsRecord(rows: readonly GoalStatsRow[]): Record<string, number> {
  const flat: Record<string, number> = {};
  for (const row of rows) {
    flat[`${row.agent}.outputTokens`] = row.outputTokens;
    flat[`${row.agent}.peakContextTokens`] = row.peakContextTokens;
    flat[`${row.agent}.totalTokens`] = row.totalTokens;
    flat[`${row.agent}.durationMs`] = row.durationMs;
  }
  flat.outputTokens = rows.reduce((sum, row) => sum + row.outputTokens, 0);
  flat.totalTokens = rows.reduce((sum, row) => sum + row.totalTokens, 0);
  flat.peakContextTokens = Math.max(0, ...rows.map((row) => row.peakContextTokens));
  return flat;
}
