/** One /goal step run by the loop, and the loop's state that every part of it shares. */
import { AbortedError, toTsukaError } from '../../errors.js';
import type { Workspace } from '../../tools/tool.js';
import type { GoalStatsRow } from './goal-stats.js';
import type { CompletedStep, RunGoalOptions, StepResult } from './goal-types.js';
import type { MergeReport } from './merge-stagings.js';
import type { PlanStep } from './plan-parser.js';

/** Thrown before a step when the budget is spent; ends the goal as stopped, with the reason. */
export class BudgetSpentError extends Error {}

export interface GoalState {
  options: RunGoalOptions;
  workspace: Workspace;
  completed: CompletedStep[];
  merges: MergeReport[];
  /** Kept with the step number: parallel steps end in any order, the table lists them in plan order. */
  stats: { stepNumber: number; row: GoalStatsRow }[];
  reworkUsed: boolean;
  /** Per plan step, whether its last attempt succeeded: a rework's result replaces the first one's. */
  lastAttemptOk: Map<number, boolean>;
  /** Plan steps done (and in `completed`): not run again. */
  done: Set<number>;
  /** Parallel steps finished whose copies are not merged yet, by step number → staging label. */
  unmerged: Map<number, string>;
  now: () => number;
}

export function statsRow(step: PlanStep, result: StepResult, fallbackMs: number): GoalStatsRow {
  return {
    agent: step.agent,
    outputTokens: result.stats?.outputTokens ?? 0,
    peakContextTokens: result.stats?.peakContextTokens ?? 0,
    totalTokens: result.stats?.totalTokens ?? 0,
    durationMs: result.stats?.durationMs ?? fallbackMs,
    ...(result.stats?.modelTimeMs !== undefined ? { modelTimeMs: result.stats.modelTimeMs } : {}),
  };
}

// Runs one step; a failure is reported and ends as undefined, a stop is thrown on.
export async function runOne(
  state: GoalState,
  step: PlanStep,
  where: { workspace: Workspace; cwd?: string; parallel: boolean },
  /** `staging`: the label of a parallel step's copy, merged after its group. */
  extra: { rework?: string; staging?: string } = {},
): Promise<CompletedStep | undefined> {
  const { options } = state;
  const { rework, staging } = extra;
  if (options.signal.aborted) throw new AbortedError();
  checkBudget(state);
  await options.onEvent({ type: 'step-start', step, parallel: where.parallel, ...(rework === undefined ? {} : { rework }) });
  const started = state.now();
  let result: StepResult;
  try {
    result = await options.runStep(step, { ...where, signal: options.signal, previous: [...state.completed], ...(rework === undefined ? {} : { rework }) });
  } catch (error) {
    if (isStop(error, options.signal)) throw error;
    state.lastAttemptOk.set(step.number, false);
    await options.onEvent({ type: 'step-failed', step, error: toTsukaError(error) });
    return undefined;
  }
  state.lastAttemptOk.set(step.number, result.ok !== false);
  state.stats.push({ stepNumber: step.number, row: statsRow(step, result, state.now() - started) });
  const done: CompletedStep = { step, result, ...(rework === undefined ? {} : { reworked: true }) };
  state.completed.push(done);
  state.done.add(step.number);
  if (staging) state.unmerged.set(step.number, staging);
  await options.onEvent({ type: 'step-end', step, result, ...(rework === undefined ? {} : { reworked: true }), ...(staging ? { staging } : {}) });
  return done;
}

export function checkBudget(state: GoalState): void {
  const spent = state.options.budgetSpent?.();
  if (spent) throw new BudgetSpentError(spent);
}

export function isStop(error: unknown, signal: AbortSignal): boolean {
  return error instanceof AbortedError || signal.aborted;
}
