/**
 * `/goal <objective>`: a planner picks agents from the whole roster; with `TSUKA_GOAL_CONFIRM` on,
 * the plan waits in the thread for Run plan / Edit / Cancel; then it runs in the root message's
 * thread — sequential steps in order, PARALLEL groups at once in staging copies merged afterwards,
 * one supervisor rework, long outputs condensed into memory, a stats table. `--budget` stops it
 * cleanly between steps once spent; the plan and each finished step are stored for Resume.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, TsukaError } from '../../../core/errors.js';
import { budgetSpent, describeBudget, parseGoalArguments, type GoalBudget } from '../../../core/workflows/goal/goal-budget.js';
import { planSteps, type PlanStep } from '../../../core/workflows/goal/plan-parser.js';
import { planGraphSvg, planGraphText } from '../../charts/plan-graph.js';
import { runGoal, type GoalEvent, type GoalOutcome, type GoalPlan, type StepResult } from '../../../core/workflows/goal/run-goal.js';
import type { ChatSurface } from '../../chat-surface.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import type { WorkflowServices } from '../../workflow-handlers.js';
import type { SlashCommandEvent } from '../../inbound-event.js';
import { createModelCallMeter, planWithModel } from './goal-model-calls.js';
import { supervisorOf } from './goal-prompts.js';
import { resolveGoalConflicts, tsukaMerger } from './goal-conflicts.js';
import { runSafely } from '../run-safely.js';
import { openWorkflowSession, type WorkflowSession, type WorkflowSessionOptions } from '../workflow-session.js';
import { closing } from './goal-closing.js';
import { review, runStep, type GoalContext } from './goal-turns.js';
import { markMerged, resumedRun, saveGoalState, storedStep, type GoalRunState } from './goal-run-state.js';
import { isShutdown } from '../../runs/active-runs.js';
import { awaitPlanApproval } from './plan-approval.js';

export interface GoalCommandOptions {
  cardIntervalMs?: number;
  /** Most steps the planner is asked to use. */
  maxSteps?: number;
  /** Show the plan and wait for Run plan (`TSUKA_GOAL_CONFIRM`); needs `services.planGates`. Default off here, on in `tsuka start`. */
  confirm?: boolean;
}

/** Staging copies of a goal live here, under the workspace root (never copied into a staging itself). */
export const GOAL_STAGING_FOLDER = path.join('.tsuka', 'staging');

/** Said once in the thread (and stored) when the plan names no supervisor-role agent. */
export const NO_REVIEW_NOTE = 'no review: the plan names no supervisor';

/** What one /goal run (new or resumed) is given. */
export interface GoalDrive {
  deps: CommandDependencies;
  services: WorkflowServices;
  surface: ChatSurface;
  event: WorkflowSessionOptions['event'] & Pick<SlashCommandEvent, 'schedule'>;
  objective: string;
  budget?: GoalBudget;
  confirm: boolean;
  options: GoalCommandOptions;
  /** Resume: the reopened run and what it stored. */
  resume?: { run: NonNullable<WorkflowSessionOptions['resume']>; state: GoalRunState };
}

export async function handleGoalCommand(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: SlashCommandEvent,
  surface: ChatSurface,
  options: GoalCommandOptions = {},
): Promise<void> {
  const parsed = parseGoalArguments(event.text);
  if (!parsed.ok) return event.reply(parsed.message);
  const { objective, budget } = parsed;
  if (objective === '') return event.reply('Usage: /goal <objective> [--budget 20m|50k] — e.g. /goal add a health check endpoint with a test');
  // A scheduled goal was agreed when it was scheduled: it does not wait for Run plan.
  const confirm = options.confirm === true && services.planGates !== undefined && event.schedule === undefined;
  return driveGoal({ deps, services, surface, event, objective, ...(budget ? { budget } : {}), confirm, options });
}

/** Opens (or, on Resume, reopens) the session and runs the goal to its end. */
export async function driveGoal(drive: GoalDrive): Promise<void> {
  const { deps, services, surface, event, objective, budget, options, resume } = drive;
  const session = await openWorkflowSession({
    deps,
    services,
    surface,
    event,
    kind: 'goal',
    title: `Goal: ${objective.slice(0, 80)}`,
    rootText: deps.maskSecrets(`${event.schedule ? `⏰ Scheduled (${event.schedule}) · ` : ''}🎯 Goal by ${surface.mention(event.user)}: ${objective}`),
    members: [...deps.roster.characters.values()],
    // The table is the goal's own (per step, by agent file name, wall clock for parallel groups).
    collectStats: false,
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
    ...(resume ? { resume: resume.run } : {}),
  });
  if (!session) return;
  const current = deps.models.current();
  const stagingRoot = path.join(deps.workspace.root, GOAL_STAGING_FOLDER, session.runId);
  const initial: GoalRunState = resume?.state ?? {
    objective,
    ...(budget ? { budget } : {}),
    approved: !drive.confirm,
    finished: [],
    spent: { tokens: 0, modelTimeMs: 0 },
  };
  const remember = (change: (state: GoalRunState) => GoalRunState) => saveGoalState(deps.store, session.runId, change, initial);
  await runSafely(session, deps, async () => {
    if (!resume) await deps.runs.appendEvent(session.runId, { type: 'message', agent: event.userName ?? event.user, text: deps.maskSecrets(objective) });
    await remember((state) => state);
    if (!current) throw new TsukaError('model_unavailable', deps.models.unavailableMessage());
    const context: GoalContext = {
      deps,
      session,
      model: current.model,
      objective,
      totalSteps: 0,
      reviewRows: [],
      stepRows: [],
      spentBefore: resume?.state.spent ?? { tokens: 0, modelTimeMs: 0 },
      modelCalls: createModelCallMeter(),
      planCard: false,
    };
    const spending = () => spentSoFar(context);
    const needsApproval = resume ? !resume.state.approved : drive.confirm;
    let outcome: GoalOutcome;
    try {
      outcome = await runGoal({
        objective,
        roster: deps.roster,
        ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        ...(resume ? resumedRun(resume.state) : {}),
        planner: (prompt) => {
          session.io.activity('🧭 planning');
          return planWithModel(current.model, prompt, session.abort.signal, context.modelCalls, session.effortFor());
        },
        runStep: (step, stepContext) => runStep(context, step, stepContext),
        supervisorReview: (step: PlanStep, result: StepResult) =>
          context.reviewer ? review(context, context.reviewer, step, result) : Promise.resolve('accept' as const),
        ...(needsApproval && services.planGates
          ? {
              approvePlan: (plan: GoalPlan) => {
                context.planCard = true;
                return awaitPlanApproval(
                  {
                    deps,
                    session,
                    surface,
                    gates: services.planGates!,
                    requester: event.user,
                    ...(budget ? { budget: describeBudget(budget) } : {}),
                    adopt: (edited) => adoptPlan(context, edited),
                    remember: (shown, approved) => remember((state) => ({ ...state, plan: shown, approved })),
                  },
                  plan,
                );
              },
            }
          : {}),
        budgetSpent: () => budgetSpent(budget, spending()),
        onEvent: async (goalEvent) => {
          if (goalEvent.type === 'plan') {
            adoptPlan(context, goalEvent.plan);
            context.planCard = needsApproval;
          }
          await recordGoalEvent(remember, goalEvent, spending);
          await show(context, goalEvent);
        },
        // Issue 28: the plan's supervisor proposes merges of conflicting files; its turns join the review rows.
        resolveConflicts: (report, stagings) =>
          resolveGoalConflicts(
            {
              deps,
              session,
              objective,
              requester: event.user,
              rows: context.reviewRows,
              // Issue 35: no supervisor in the plan: TSUKA itself proposes the merge (the planner is no character).
              resolver: (context.reviewer ? deps.roster.characters.get(context.reviewer) : undefined) ?? tsukaMerger(deps.roster),
            },
            report,
            stagings,
          ),
        signal: session.abort.signal,
        workspaceRoot: deps.workspace.root,
        stagingRoot,
        labelPrefix: session.runId,
      });
    } catch (error) {
      if (error instanceof AbortedError || session.abort.signal.aborted)
        return { status: 'stopped', headline: '⏹ Goal stopped.', summary: context.planCard ? 'Stopped before the plan ran.' : 'Stopped while planning.' };
      throw error;
    } finally {
      await removeStagings(deps, session, stagingRoot);
    }
    if (outcome.kind === 'trivial') return { status: 'completed', headline: '💡 No team needed.', summary: outcome.answer || '(the planner gave no answer)' };
    if (outcome.kind === 'cancelled') return { status: 'stopped', headline: '✖ Goal cancelled.', summary: 'The plan was not run: no step started.' };
    return closing(context, outcome);
  });
}

// What Resume needs is stored as it happens: the plan, each finished step (a parallel one with its
// copy until the group's merge), the merge, and a finished step whose copy a restart lost (no longer done).
async function recordGoalEvent(
  remember: (change: (state: GoalRunState) => GoalRunState) => Promise<void>,
  goalEvent: GoalEvent,
  spending: () => GoalRunState['spent'],
): Promise<void> {
  if (goalEvent.type === 'plan' && !goalEvent.resumed) await remember((state) => ({ ...state, plan: goalEvent.plan }));
  if (goalEvent.type === 'step-end') {
    const done = { step: goalEvent.step, result: goalEvent.result, ...(goalEvent.reworked ? { reworked: true } : {}) };
    await remember((state) => ({ ...state, finished: [...state.finished, storedStep(done, goalEvent.staging)], spent: spending() }));
  }
  if (goalEvent.type === 'merge') await remember((state) => markMerged(state, goalEvent.steps));
  if (goalEvent.type === 'step-lost')
    await remember((state) => ({ ...state, finished: state.finished.filter((step) => step.number !== goalEvent.step.number) }));
}

// A shutdown keeps the copies of branches that finished unmerged: Resume, after the restart, merges them.
async function removeStagings(deps: CommandDependencies, session: WorkflowSession, stagingRoot: string): Promise<void> {
  if (isShutdown(session.abort.signal)) return;
  await rm(stagingRoot, { recursive: true, force: true }).catch((error: unknown) =>
    deps.logger.warn('could not remove the goal staging folder', { error, stagingRoot }),
  );
}

// The plan's agents may be messaged; its step count and supervisor are fixed for the run.
function adoptPlan(context: GoalContext, plan: GoalPlan): void {
  const { deps, session } = context;
  const agents = planSteps(plan).map((step) => step.agent);
  session.setMembers([...new Set(agents.filter((agent) => deps.roster.characters.has(agent)))]);
  context.totalSteps = agents.length;
  const reviewer = supervisorOf(deps.roster, agents);
  if (reviewer) context.reviewer = reviewer.name;
  else delete context.reviewer;
}

function spentSoFar(context: GoalContext): { tokens: number; modelTimeMs: number } {
  const rows = [...context.stepRows, ...context.reviewRows, ...context.modelCalls.rows()];
  return {
    tokens: context.spentBefore.tokens + rows.reduce((sum, row) => sum + row.totalTokens, 0),
    modelTimeMs: context.spentBefore.modelTimeMs + rows.reduce((sum, row) => sum + (row.modelTimeMs ?? row.durationMs), 0),
  };
}

// Everything the loop reports is stored, then posted in the thread by the bot.
async function show(context: GoalContext, goalEvent: GoalEvent): Promise<void> {
  const { session } = context;
  switch (goalEvent.type) {
    case 'plan': {
      if (goalEvent.resumed) {
        await session.io.announce(
          `▶ Resuming the stored plan (${context.totalSteps} step${context.totalSteps === 1 ? '' : 's'}): finished steps are not run again.`,
        );
        return;
      }
      // With confirmation the plan card shows the plan; the graph still helps to read it.
      if (!context.planCard) await session.io.announce(`📋 Plan (${context.totalSteps} step${context.totalSteps === 1 ? '' : 's'}):\n${goalEvent.text}`);
      if (goalEvent.plan.kind === 'plan' && context.totalSteps > 0 && !context.reviewer) await session.io.announce(NO_REVIEW_NOTE);
      if (goalEvent.plan.kind !== 'plan' || context.totalSteps < 2) return;
      const title = 'Plan: who works when';
      return session.picture({
        fileName: 'goal-plan.svg',
        title,
        svg: planGraphSvg(goalEvent.plan.groups, title),
        altText: planGraphText(goalEvent.plan.groups),
      });
    }
    case 'step-skipped':
      return session.io.announce(`⏭ Step ${goalEvent.step.number} skipped: ${goalEvent.reason}`);
    case 'step-failed':
      return session.io.announce(`✖ Step ${goalEvent.step.number} (@${goalEvent.step.agent}) failed: ${goalEvent.error.message}`);
    case 'merge':
      return session.io.announce(`🔀 ${goalEvent.text}`);
    case 'step-lost':
      return session.io.announce(`↻ Step ${goalEvent.step.number} (@${goalEvent.step.agent}) runs again: ${goalEvent.reason}.`);
    case 'rework':
      return session.io.announce(`↩ Step ${goalEvent.step.number} (@${goalEvent.step.agent}) goes back for one rework: ${goalEvent.feedback}`);
    case 'review-failed':
      return session.io.announce(`⚠️ The review of step ${goalEvent.step.number} failed (${goalEvent.error.message}); the step stands as it is.`);
    case 'step-start':
    case 'step-end':
      // Each step's own message (under the agent's identity) shows its start and its end.
      return;
  }
}
