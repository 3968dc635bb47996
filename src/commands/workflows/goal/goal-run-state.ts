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

export function storedStep(done: CompletedStep): StoredStep {
  const { result } = done;
  return {
    number: done.step.number,
    output: result.output.length > MAX_STORED_OUTPUT ? `${result.output.slice(0, MAX_STORED_OUTPUT)}\n…(clipped)` : result.output,
    ok: result.ok !== false,
    ...(result.summary ? { summary: result.summary } : {}),
    ...(done.reworked ? { reworked: true } : {}),
    ...(result.stats ? { stats: result.stats } : {}),
  };
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
