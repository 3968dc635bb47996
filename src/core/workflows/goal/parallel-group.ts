/**
 * A PARALLEL group of a /goal: each branch in its own staging copy, merged once all have ended;
 * on Resume, branches that finished before the restart are merged with the group's new ones.
 */
import { toTsukaError } from '../../errors.js';
import { checkBudget, isStop, runOne, type GoalState } from './goal-step.js';
import type { CompletedStep } from './goal-types.js';
import { formatMergeReport, mergeStagings } from './merge-stagings.js';
import { createStaging, reopenStaging, stagingLabel, type Staging } from './parallel-workspace.js';
import type { PlanStep } from './plan-parser.js';

/** A branch of a parallel group that ran to its end, with its copy. */
interface FinishedBranch {
  done: CompletedStep;
  staging: Staging;
}

// `carried`: branches an earlier process finished (Resume), merged with the group's new ones.
export async function runParallel(state: GoalState, steps: readonly PlanStep[], carried: readonly FinishedBranch[]): Promise<CompletedStep[]> {
  const { options } = state;
  const stagings: Staging[] = carried.map((branch) => branch.staging);
  const kept = new Set<Staging>();
  try {
    // allSettled, not all: on a stop every branch must have ended before its copy is removed.
    const settled = await Promise.allSettled(steps.map((step) => runBranch(state, step, stagings)));
    const branches = [...carried, ...settled.flatMap((outcome) => (outcome.status === 'fulfilled' && outcome.value ? [outcome.value] : []))];
    const stop = settled.find((outcome) => outcome.status === 'rejected');
    if (stop || options.signal.aborted) {
      // A finished branch's copy outlives the stop: Resume after a restart merges it instead of losing its work.
      for (const branch of branches) kept.add(branch.staging);
      if (stop) throw stop.reason;
      return [];
    }
    // Only branches that ran to the end are merged; a crashed branch's half-made changes are dropped.
    const report = await mergeStagings(
      options.workspaceRoot,
      branches.map((branch) => branch.staging),
    );
    state.merges.push(report);
    const merged = branches.map((branch) => branch.done.step.number);
    for (const number of merged) state.unmerged.delete(number);
    await options.onEvent({ type: 'merge', report, text: formatMergeReport(report), steps: merged });
    if (report.conflicts.length > 0 && options.resolveConflicts) {
      await options.resolveConflicts(
        report,
        branches.map((branch) => branch.staging),
      );
    }
    return branches.map((branch) => branch.done);
  } finally {
    await Promise.all(stagings.filter((staging) => !kept.has(staging)).map((staging) => staging.cleanup()));
  }
}

// One branch in its own copy (pushed to `stagings` for clean-up); undefined when it failed.
async function runBranch(state: GoalState, step: PlanStep, stagings: Staging[]): Promise<FinishedBranch | undefined> {
  const { options } = state;
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
  const done = await runOne(state, step, { workspace: staging.workspace, cwd: staging.root, parallel: true }, { staging: staging.label });
  return done ? { done, staging } : undefined;
}

/**
 * Resume: the group's steps that finished before the restart without being merged. A copy that
 * is still there is merged with the group; a step whose copy is gone is no longer done and runs again.
 */
export async function reopenFinishedBranches(state: GoalState, steps: readonly PlanStep[]): Promise<FinishedBranch[]> {
  const carried: FinishedBranch[] = [];
  for (const step of steps) {
    const label = state.unmerged.get(step.number);
    const done = state.completed.find((entry) => entry.step.number === step.number);
    if (label === undefined || !done) continue;
    const staging = await reopenStaging(state.options.stagingRoot, label);
    if (staging) {
      carried.push({ done, staging });
      continue;
    }
    state.unmerged.delete(step.number);
    state.done.delete(step.number);
    state.lastAttemptOk.delete(step.number);
    state.completed = state.completed.filter((entry) => entry.step.number !== step.number);
    state.stats = state.stats.filter((entry) => entry.stepNumber !== step.number);
    await state.options.onEvent({ type: 'step-lost', step, reason: 'its staging copy did not survive the restart, so its changes are not in the workspace' });
  }
  return carried;
}
