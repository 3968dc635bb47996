/**
 * The /goal loop as a pure function: plan once, run sequential steps in the workspace and each
 * PARALLEL group concurrently in staging copies merged afterwards, allow one supervisor rework,
 * stop everything on abort. The chat wiring supplies the model calls and posts the events.
 */
import { AbortedError, type TsukaError, toTsukaError } from '../../errors.js';
import type { Roster } from '../../data/types.js';
import { createWorkspace } from '../../safety/workspace-jail.js';
import type { Workspace } from '../../tools/tool.js';
import { mergeStatsByAgent, type GoalStatsRow } from './goal-stats.js';
import { formatMergeReport, mergeStagings, type MergeReport } from './merge-stagings.js';
import { createStaging, stagingLabel, type Staging } from './parallel-workspace.js';
import { formatPlan, parsePlan, type ParsedPlan, type PlanStep } from './plan-parser.js';
import { buildPlannerPrompt } from './planner-prompt.js';

export type GoalPlan = Extract<ParsedPlan, { kind: 'plan' }>;

/** What a step's agent produced. */
export interface StepResult {
  output: string;
  /** False when the agent reported failure; the run goes on either way. */
  ok?: boolean;
  /** A condensed form for later steps and memory (see `condenseStepOutput`). */
  summary?: string;
  /** Token counts; `durationMs` is measured by the loop when left out. */
  stats?: Omit<GoalStatsRow, 'agent' | 'durationMs'> & { durationMs?: number };
}

/** Where and how one step runs. */
export interface StepRunContext {
  /** The workspace jail for its tools: the real workspace, or its staging copy in a PARALLEL group. */
  workspace: Workspace;
  /** For a parallel step, the staging folder: the wiring must set `services.cwd` to it for `execute_command`. */
  cwd?: string;
  signal: AbortSignal;
  parallel: boolean;
  /** Steps finished so far, in the order they finished. */
  previous: readonly CompletedStep[];
  /** The supervisor's feedback when the step is run again for rework. */
  rework?: string;
}

export interface CompletedStep {
  step: PlanStep;
  result: StepResult;
  reworked?: boolean;
}

export type GoalEvent =
  /** `resumed`: the stored plan of an interrupted run, continued (no planner call). */
  | { type: 'plan'; plan: GoalPlan; text: string; resumed?: boolean }
  | { type: 'step-start'; step: PlanStep; parallel: boolean; rework?: string }
  | { type: 'step-end'; step: PlanStep; result: StepResult; reworked?: boolean }
  | { type: 'step-failed'; step: PlanStep; error: TsukaError }
  | { type: 'step-skipped'; step: PlanStep; reason: string }
  | { type: 'merge'; report: MergeReport; text: string }
  | { type: 'rework'; step: PlanStep; feedback: string }
  | { type: 'review-failed'; step: PlanStep; error: TsukaError };

export type GoalOutcome =
  | { kind: 'trivial'; answer: string }
  | {
      /** `cancelled`: the plan was shown and not agreed to (Cancel, or no decision in time) — no step ran. */
      kind: 'completed' | 'stopped' | 'cancelled';
      /** Set when the goal stopped because its budget was spent: why, for the thread. */
      budgetSpent?: string;
      plan: GoalPlan;
      /** In the order they finished; a reworked step appears again, marked `reworked`. */
      steps: CompletedStep[];
      merges: MergeReport[];
      /** One row per agent in plan order (not finishing order), for `formatStatsTable`. */
      stats: GoalStatsRow[];
      /** From the plan to the end; less than the sum of the rows when steps ran in parallel. */
      wallClockMs: number;
      /** Plan step numbers whose last attempt failed (thrown, or reported with `ok: false`), ascending. */
      failedSteps: number[];
      /** How many plan steps were attempted at all (skipped ones are not). */
      attemptedSteps: number;
    };

export type ReviewDecision = 'accept' | { rework: string };

export interface RunGoalOptions {
  objective: string;
  roster: Roster;
  /** One planner model call; returns the plan text. */
  planner: (prompt: { system: string; user: string }) => Promise<string>;
  runStep: (step: PlanStep, context: StepRunContext) => Promise<StepResult>;
  /** Reviews a finished step; at most one rework is granted per goal. */
  supervisorReview?: (step: PlanStep, result: StepResult) => Promise<ReviewDecision>;
  onEvent: (event: GoalEvent) => void | Promise<void>;
  signal: AbortSignal;
  workspaceRoot: string;
  /** A folder for this goal's staging copies, outside the workspace or inside it (it is never copied). */
  stagingRoot: string;
  maxSteps?: number;
  /**
   * Called after a parallel group's merge reported conflicts, while the branch copies still exist:
   * a character may propose merged files (issue 28). A stop thrown from it ends the goal as stopped.
   */
  resolveConflicts?: (report: MergeReport, stagings: readonly Staging[]) => Promise<void>;
  /** Prefix for staging labels (and so for conflict folders), e.g. the run id, so goals do not share them. */
  labelPrefix?: string;
  now?: () => number;
  /** A stored plan to continue (Resume): the planner is not asked again. */
  plan?: GoalPlan;
  /** Steps an earlier attempt finished (Resume): not run again, seen by later steps as done. */
  finished?: readonly CompletedStep[];
  /**
   * Shown the plan before any step runs: resolves to the plan to run (possibly edited), or
   * undefined when it was cancelled. Absent: the plan runs at once.
   */
  approvePlan?: (plan: GoalPlan) => Promise<GoalPlan | undefined>;
  /** Checked before each step and review: a reason when the goal's budget is spent, which stops it cleanly. */
  budgetSpent?: () => string | undefined;
}

/** Thrown before a step when the budget is spent; ends the goal as stopped, with the reason. */
class BudgetSpentError extends Error {}

interface GoalState {
  options: RunGoalOptions;
  workspace: Workspace;
  completed: CompletedStep[];
  merges: MergeReport[];
  /** Kept with the step number: parallel steps end in any order, the table lists them in plan order. */
  stats: { stepNumber: number; row: GoalStatsRow }[];
  reworkUsed: boolean;
  /** Per plan step, whether its last attempt succeeded: a rework's result replaces the first one's. */
  lastAttemptOk: Map<number, boolean>;
  now: () => number;
}

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
    if (!approved) return { kind: 'cancelled', plan: parsed, steps: [], merges: [], stats: [], wallClockMs: 0, failedSteps: [], attemptedSteps: 0 };
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
    now: options.now ?? Date.now,
  };
  const alreadyDone = new Set((options.finished ?? []).map((done) => done.step.number));
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
  });
  try {
    for (const group of plan.groups) {
      const runnable = await skipUnknown(
        state,
        group.steps.filter((step) => !alreadyDone.has(step.number)),
      );
      if (group.parallel && runnable.length > 1) {
        const finished = await runParallel(state, runnable);
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

function statsRow(step: PlanStep, result: StepResult, fallbackMs: number): GoalStatsRow {
  return {
    agent: step.agent,
    outputTokens: result.stats?.outputTokens ?? 0,
    peakContextTokens: result.stats?.peakContextTokens ?? 0,
    totalTokens: result.stats?.totalTokens ?? 0,
    durationMs: result.stats?.durationMs ?? fallbackMs,
    ...(result.stats?.modelTimeMs !== undefined ? { modelTimeMs: result.stats.modelTimeMs } : {}),
  };
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

async function runParallel(state: GoalState, steps: readonly PlanStep[]): Promise<CompletedStep[]> {
  const { options } = state;
  const stagings: Staging[] = [];
  try {
    // allSettled, not all: on a stop every branch must have ended before its copy is removed.
    const settled = await Promise.allSettled(
      steps.map(async (step) => {
        const label = stagingLabel(`${options.labelPrefix ? `${options.labelPrefix}-` : ''}step-${step.number}-${step.agent}`);
        let staging: Staging;
        checkBudget(state);
        try {
          staging = await createStaging(options.workspaceRoot, options.stagingRoot, label, { signal: options.signal });
        } catch (error) {
          if (isStop(error, options.signal)) throw error;
          state.lastAttemptOk.set(step.number, false);
          await options.onEvent({ type: 'step-failed', step, error: toTsukaError(error) });
          return undefined;
        }
        stagings.push(staging);
        const done = await runOne(state, step, { workspace: staging.workspace, cwd: staging.root, parallel: true });
        return done ? { done, staging } : undefined;
      }),
    );
    const stop = settled.find((outcome) => outcome.status === 'rejected');
    if (stop) throw stop.reason;
    if (options.signal.aborted) return [];
    const branches = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
    // Only branches that ran to the end are merged; a crashed branch's half-made changes are dropped.
    const succeeded = branches.filter((branch) => branch !== undefined);
    const report = await mergeStagings(
      options.workspaceRoot,
      succeeded.map((branch) => branch.staging),
    );
    state.merges.push(report);
    await options.onEvent({ type: 'merge', report, text: formatMergeReport(report) });
    if (report.conflicts.length > 0 && options.resolveConflicts) {
      await options.resolveConflicts(
        report,
        succeeded.map((branch) => branch.staging),
      );
    }
    return succeeded.map((branch) => branch.done);
  } finally {
    await Promise.all(stagings.map((staging) => staging.cleanup()));
  }
}

// Runs one step; a failure is reported and ends as undefined, a stop is thrown on.
async function runOne(
  state: GoalState,
  step: PlanStep,
  where: { workspace: Workspace; cwd?: string; parallel: boolean },
  rework?: string,
): Promise<CompletedStep | undefined> {
  const { options } = state;
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
  await options.onEvent({ type: 'step-end', step, result, ...(rework === undefined ? {} : { reworked: true }) });
  return done;
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
  await runOne(state, done.step, { workspace: state.workspace, parallel: false }, decision.rework);
}

function checkBudget(state: GoalState): void {
  const spent = state.options.budgetSpent?.();
  if (spent) throw new BudgetSpentError(spent);
}

function isStop(error: unknown, signal: AbortSignal): boolean {
  return error instanceof AbortedError || signal.aborted;
}
