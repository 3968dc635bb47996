/**
 * What a /goal run keeps to be resumed after a restart (issue 25): the objective and budget, the
 * plan once made (and whether it was agreed), each finished step's outcome, and what was spent.
 * Kept in the store's `goal-runs` namespace under the run id, written as the run goes.
 */
import type { Store } from '../../../core/store/open-store.js';
import type { GoalBudget, GoalSpending } from '../../../core/workflows/goal/goal-budget.js';
import { planSteps } from '../../../core/workflows/goal/plan-parser.js';
import type { CompletedStep, GoalPlan, StepResult } from '../../../core/workflows/goal/run-goal.js';

/** A step output longer than this is kept clipped (the full text is in the run's event log). */
const MAX_STORED_OUTPUT = 16_000;

export interface StoredStep {
  number: number;
  output: string;
  ok: boolean;
  summary?: string;
  reworked?: boolean;
  stats?: StepResult['stats'];
  /** A parallel step's staging label until its group is merged: Resume merges that copy, or runs the step again. */
  staging?: string;
}

export interface GoalRunState {
  objective: string;
  budget?: GoalBudget;
  plan?: GoalPlan;
  /** True once the plan was agreed (Run plan), or when no agreement was asked. */
  approved: boolean;
  finished: StoredStep[];
  spent: GoalSpending;
}

const namespace = (store: Store) => store.namespace<GoalRunState>('goal-runs');

export const loadGoalState = (store: Store, runId: string): Promise<GoalRunState | undefined> => namespace(store).get(runId);

export async function saveGoalState(store: Store, runId: string, change: (current: GoalRunState) => GoalRunState, initial: GoalRunState): Promise<void> {
  await namespace(store).update(runId, (current) => change(current ?? initial));
}

export function storedStep(done: CompletedStep, staging?: string): StoredStep {
  const { result } = done;
  return {
    number: done.step.number,
    output: result.output.length > MAX_STORED_OUTPUT ? `${result.output.slice(0, MAX_STORED_OUTPUT)}\n…(clipped)` : result.output,
    ok: result.ok !== false,
    ...(result.summary ? { summary: result.summary } : {}),
    ...(done.reworked ? { reworked: true } : {}),
    ...(result.stats ? { stats: result.stats } : {}),
    ...(staging ? { staging } : {}),
  };
}

/** After a merge: the merged steps' copies are gone, their changes in the workspace. */
export function markMerged(state: GoalRunState, steps: readonly number[]): GoalRunState {
  const merged = new Set(steps);
  const withoutCopy = ({ staging: _merged, ...step }: StoredStep): StoredStep => step;
  return { ...state, finished: state.finished.map((step) => (merged.has(step.number) ? withoutCopy(step) : step)) };
}

/** What Resume continues from: the stored plan, its finished steps and, of those, the copies not merged yet. */
export function resumedRun(state: GoalRunState): { plan: GoalPlan; finished: CompletedStep[]; unmerged: Map<number, string> } | undefined {
  if (!state.plan) return undefined;
  const unmerged = new Map(state.finished.flatMap((step) => (step.staging ? [[step.number, step.staging] as const] : [])));
  return { plan: state.plan, finished: completedSteps(state), unmerged };
}

/** The finished steps back as the loop knows them; a step the plan no longer has is dropped. */
export function completedSteps(state: GoalRunState): CompletedStep[] {
  if (!state.plan) return [];
  const byNumber = new Map(planSteps(state.plan).map((step) => [step.number, step]));
  const done: CompletedStep[] = [];
  for (const stored of state.finished) {
    const step = byNumber.get(stored.number);
    if (!step) continue;
    done.push({
      step,
      result: {
        output: stored.output,
        ok: stored.ok,
        ...(stored.summary ? { summary: stored.summary } : {}),
        ...(stored.stats ? { stats: stored.stats } : {}),
      },
      ...(stored.reworked ? { reworked: true } : {}),
    });
  }
  return done;
}
