/**
 * The /goal loop as a pure function: plan once, run sequential steps in the workspace and each
 * PARALLEL group concurrently in staging copies merged afterwards, allow one supervisor rework,
 * stop everything on abort. The chat wiring supplies the model calls and posts the events.
 */
import { AbortedError, toTsukaError } from '../../errors.js';
import { createWorkspace } from '../../safety/workspace-jail.js';
import { mergeStatsByAgent } from './goal-stats.js';
import { BudgetSpentError, isStop, runOne, statsRow, type GoalState } from './goal-step.js';
import type { CompletedStep, GoalOutcome, GoalPlan, ReviewDecision, RunGoalOptions } from './goal-types.js';
import { reopenFinishedBranches, runParallel } from './parallel-group.js';
import { formatPlan, parsePlan, type PlanStep } from './plan-parser.js';
import { buildPlannerPrompt } from './planner-prompt.js';

export type { CompletedStep, GoalEvent, GoalOutcome, GoalPlan, ReviewDecision, RunGoalOptions, StepResult, StepRunContext } from './goal-types.js';

/** Runs a whole goal. Throws only when planning fails or is stopped; later, a stop ends as `stopped`. */
export async function runGoal(options: RunGoalOptions): Promise<GoalOutcome> {
  let parsed: GoalPlan;
  if (options.plan) {
    parsed = options.plan;
    await options.onEvent({ type: 'plan', plan: parsed, text: formatPlan(parsed), resumed: true });
  } else {
    const plannerText = await options.planner(buildPlannerPrompt({ objective: options.objective, roster: options.roster, maxSteps: options.maxSteps }));
    if (options.signal.aborted) throw new AbortedError();
    const fresh = parsePlan(plannerText, options.roster);
    if (fresh.kind === 'trivial') return fresh;
    parsed = fresh;
    await options.onEvent({ type: 'plan', plan: parsed, text: formatPlan(parsed) });
  }
  if (options.approvePlan) {
    const approved = await options.approvePlan(parsed);
    if (options.signal.aborted) throw new AbortedError();
    if (!approved)
      return { kind: 'cancelled', plan: parsed, steps: [], merges: [], stats: [], wallClockMs: 0, failedSteps: [], attemptedSteps: 0, unmergedSteps: [] };
    parsed = approved;
  }
  const plan = parsed;

  const state: GoalState = {
    options,
    workspace: await createWorkspace(options.workspaceRoot),
    completed: [...(options.finished ?? [])],
    merges: [],
    stats: (options.finished ?? []).map((done) => ({ stepNumber: done.step.number, row: statsRow(done.step, done.result, 0) })),
    reworkUsed: (options.finished ?? []).some((done) => done.reworked),
    lastAttemptOk: new Map((options.finished ?? []).map((done) => [done.step.number, done.result.ok !== false])),
    done: new Set((options.finished ?? []).map((done) => done.step.number)),
    unmerged: new Map(options.unmerged ?? []),
    now: options.now ?? Date.now,
  };
  const startedAt = state.now();
  const finish = (kind: 'completed' | 'stopped', budget?: string): GoalOutcome => ({
    kind,
    ...(budget ? { budgetSpent: budget } : {}),
    plan,
    steps: state.completed,
    merges: state.merges,
    stats: mergeStatsByAgent([...state.stats].sort((a, b) => a.stepNumber - b.stepNumber).map((entry) => entry.row)),
    wallClockMs: state.now() - startedAt,
    failedSteps: [...state.lastAttemptOk]
      .filter(([, ok]) => !ok)
      .map(([number]) => number)
      .sort((a, b) => a - b),
    attemptedSteps: state.lastAttemptOk.size,
    unmergedSteps: [...state.unmerged.keys()].sort((a, b) => a - b),
  });
  try {
    for (const group of plan.groups) {
      const carried = await reopenFinishedBranches(state, group.steps);
      const runnable = await skipUnknown(
        state,
        group.steps.filter((step) => !state.done.has(step.number)),
      );
      if (group.parallel && (runnable.length > 1 || carried.length > 0)) {
        const finished = await runParallel(state, runnable, carried);
        if (options.signal.aborted) return finish('stopped');
        for (const done of finished) await review(state, done);
      } else {
        await runSequential(state, runnable);
      }
    }
  } catch (error) {
    if (error instanceof BudgetSpentError) return finish('stopped', error.message);
    if (isStop(error, options.signal)) return finish('stopped');
    throw error;
  }
  return finish(options.signal.aborted ? 'stopped' : 'completed');
}

async function skipUnknown(state: GoalState, steps: readonly PlanStep[]): Promise<PlanStep[]> {
  const runnable: PlanStep[] = [];
  for (const step of steps) {
    if (!step.unknownAgent) {
      runnable.push(step);
      continue;
    }
    const hint = step.suggestion ? ` (did you mean @${step.suggestion}?)` : '';
    const reason = step.agent === '' ? 'the step names no agent' : `@${step.agent} is not in the roster${hint}`;
    await state.options.onEvent({ type: 'step-skipped', step, reason });
  }
  return runnable;
}

async function runSequential(state: GoalState, steps: readonly PlanStep[]): Promise<void> {
  for (const step of steps) {
    if (state.options.signal.aborted) break;
    // Each sequential step is reviewed before the next one starts, so a rework comes before anything builds on it.
    const done = await runOne(state, step, { workspace: state.workspace, parallel: false });
    if (done) await review(state, done);
  }
}

async function review(state: GoalState, done: CompletedStep): Promise<void> {
  const { options } = state;
  if (!options.supervisorReview || state.reworkUsed || done.reworked || options.signal.aborted || options.budgetSpent?.()) return;
  let decision: ReviewDecision;
  try {
    decision = await options.supervisorReview(done.step, done.result);
  } catch (error) {
    if (isStop(error, options.signal)) throw error;
    await options.onEvent({ type: 'review-failed', step: done.step, error: toTsukaError(error) });
    return;
  }
  if (decision === 'accept') return;
  state.reworkUsed = true;
  await options.onEvent({ type: 'rework', step: done.step, feedback: decision.rework });
  // A rework runs in the real workspace: a parallel step's copy is already merged and gone.
  await runOne(state, done.step, { workspace: state.workspace, parallel: false }, { rework: decision.rework });
}
