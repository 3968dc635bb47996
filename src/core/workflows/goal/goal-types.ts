/** The types of the /goal loop (`run-goal.ts`): its plan, steps, events, outcome and options. */
import type { TsukaError } from '../../errors.js';
import type { Roster } from '../../data/types.js';
import type { Workspace } from '../../tools/tool.js';
import type { GoalStatsRow } from './goal-stats.js';
import type { MergeReport } from './merge-stagings.js';
import type { Staging } from './parallel-workspace.js';
import type { ParsedPlan, PlanStep } from './plan-parser.js';

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
  /** `staging`: a parallel step's copy, not merged yet (its label: Resume merges it if the copy outlives a restart). */
  | { type: 'step-end'; step: PlanStep; result: StepResult; reworked?: boolean; staging?: string }
  | { type: 'step-failed'; step: PlanStep; error: TsukaError }
  | { type: 'step-skipped'; step: PlanStep; reason: string }
  /** `steps`: the plan steps whose copies this merge applied. */
  | { type: 'merge'; report: MergeReport; text: string; steps: number[] }
  /** A step that finished before a restart whose staging copy is gone: it runs again, so no work is claimed that is not there. */
  | { type: 'step-lost'; step: PlanStep; reason: string }
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
      /** Parallel steps that finished but whose copies were never merged (the goal stopped first): their changes are not in the workspace. */
      unmergedSteps: number[];
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
   * Of `finished`, the parallel steps whose copies were not merged before the restart, by plan step
   * number → staging label: merged with their group on Resume, or run again when the copy is gone.
   */
  unmerged?: ReadonlyMap<number, string>;
  /**
   * Shown the plan before any step runs: resolves to the plan to run (possibly edited), or
   * undefined when it was cancelled. Absent: the plan runs at once.
   */
  approvePlan?: (plan: GoalPlan) => Promise<GoalPlan | undefined>;
  /** Checked before each step and review: a reason when the goal's budget is spent, which stops it cleanly. */
  budgetSpent?: () => string | undefined;
}
