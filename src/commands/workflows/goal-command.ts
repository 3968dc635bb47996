/**
 * `/goal <objective>`: a planner picks agents from the whole roster, then the plan runs in the
 * root message's thread — sequential steps in order, PARALLEL groups at once in staging copies
 * merged afterwards, one supervisor rework, long outputs condensed into memory, a stats table.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AbortedError, TsukaError } from '../../core/errors.js';
import type { LanguageModel, ModelUsage } from '../../core/model/language-model.js';
import { condenseStepOutput, needsCondensing } from '../../core/workflows/goal/condense.js';
import { formatStatsTable, mergeStatsByAgent, type GoalStatsRow } from '../../core/workflows/goal/goal-stats.js';
import { planSteps, type PlanStep } from '../../core/workflows/goal/plan-parser.js';
import { planGraphSvg, planGraphText } from '../charts/plan-graph.js';
import { runGoal, type GoalEvent, type GoalOutcome, type ReviewDecision, type StepResult, type StepRunContext } from '../../core/workflows/goal/run-goal.js';
import { parseStatusLine, parseVoteLine } from '../../core/workflows/protocol.js';
import { WorkflowTurnError } from '../../core/workflows/workflow-turn-error.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { createModelCallMeter, planWithModel, PLANNER_ROW, SUMMARIES_ROW, type ModelCallMeter } from './goal-model-calls.js';
import { reviewPrompt, stepPrompt, supervisorOf } from './goal-prompts.js';
import { resolveGoalConflicts } from './goal-conflicts.js';
import { runSafely } from './run-safely.js';
import { openWorkflowSession, type WorkflowFinish, type WorkflowSession } from './workflow-session.js';

export interface GoalCommandOptions {
  cardIntervalMs?: number;
  /** Most steps the planner is asked to use. */
  maxSteps?: number;
}

/** Staging copies of a goal live here, under the workspace root (never copied into a staging itself). */
export const GOAL_STAGING_FOLDER = path.join('.tsuka', 'staging');

/** Said once in the thread (and stored) when the plan names no supervisor-role agent. */
export const NO_REVIEW_NOTE = 'no review: the plan names no supervisor';

interface GoalContext {
  deps: CommandDependencies;
  session: WorkflowSession;
  model: LanguageModel;
  objective: string;
  totalSteps: number;
  /** The supervisor's review turns: not steps, but their tokens and time belong in the table. */
  reviewRows: GoalStatsRow[];
  /** The planner and summary calls: no agent's turn, but part of what the goal cost. */
  modelCalls: ModelCallMeter;
  /**
   * Who reviews every step, fixed once the plan is known: the supervisor the plan names (its first
   * step by a supervisor-role character); none when the plan names none, so every run of the same
   * plan is reviewed the same way whatever else the roster holds.
   */
  reviewer?: string;
}

export async function handleGoalCommand(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: SlashCommandEvent,
  surface: ChatSurface,
  options: GoalCommandOptions = {},
): Promise<void> {
  const objective = event.text.trim();
  if (objective === '') return event.reply('Usage: /goal <objective> — e.g. /goal add a health check endpoint with a test');
  const session = await openWorkflowSession({
    deps,
    services,
    surface,
    event,
    kind: 'goal',
    title: `Goal: ${objective.slice(0, 80)}`,
    rootText: deps.maskSecrets(`🎯 Goal by ${surface.mention(event.user)}: ${objective}`),
    members: [...deps.roster.characters.values()],
    // The table is the goal's own (per step, by agent file name, wall clock for parallel groups).
    collectStats: false,
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
  });
  if (!session) return;
  const current = deps.models.current();
  const stagingRoot = path.join(deps.workspace.root, GOAL_STAGING_FOLDER, session.runId);
  await runSafely(session, deps, async () => {
    await deps.runs.appendEvent(session.runId, { type: 'message', agent: event.userName ?? event.user, text: deps.maskSecrets(objective) });
    if (!current) throw new TsukaError('model_unavailable', deps.models.unavailableMessage());
    const context: GoalContext = {
      deps,
      session,
      model: current.model,
      objective,
      totalSteps: 0,
      reviewRows: [],
      modelCalls: createModelCallMeter(),
    };
    let outcome: GoalOutcome;
    try {
      outcome = await runGoal({
        objective,
        roster: deps.roster,
        ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
        planner: (prompt) => {
          session.io.activity('🧭 planning');
          return planWithModel(current.model, prompt, session.abort.signal, context.modelCalls, session.effortFor());
        },
        runStep: (step, stepContext) => runStep(context, step, stepContext),
        supervisorReview: (step: PlanStep, result: StepResult) =>
          context.reviewer ? review(context, context.reviewer, step, result) : Promise.resolve('accept' as const),
        onEvent: async (goalEvent) => {
          if (goalEvent.type === 'plan') {
            session.setMembers([
              ...new Set(
                planSteps(goalEvent.plan)
                  .map((step) => step.agent)
                  .filter((agent) => deps.roster.characters.has(agent)),
              ),
            ]);
            context.totalSteps = planSteps(goalEvent.plan).length;
            const reviewer = supervisorOf(
              deps.roster,
              planSteps(goalEvent.plan).map((step) => step.agent),
            );
            if (reviewer) context.reviewer = reviewer.name;
          }
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
              ...(context.reviewer ? { resolver: deps.roster.characters.get(context.reviewer) } : {}),
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
        return { status: 'stopped', headline: '⏹ Goal stopped.', summary: 'Stopped while planning.' };
      throw error;
    } finally {
      await rm(stagingRoot, { recursive: true, force: true }).catch((error: unknown) =>
        deps.logger.warn('could not remove the goal staging folder', { error, stagingRoot }),
      );
    }
    if (outcome.kind === 'trivial') return { status: 'completed', headline: '💡 No team needed.', summary: outcome.answer || '(the planner gave no answer)' };
    return closing(context, outcome);
  });
}

// The outcome (status, headline, facts) and the stats table. A goal whose every attempted step failed
// is `failed` (as /team's "✖ … failed"); some failures leave it `completed`, with the count in the headline.
function closing(context: GoalContext, outcome: Exclude<GoalOutcome, { kind: 'trivial' }>): WorkflowFinish {
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
  const done = outcome.steps.filter((entry) => entry.result.ok !== false).length;
  const facts = [
    `${done} step(s) done`,
    ...(failed > 0 ? [`${failed} step(s) failed (${outcome.failedSteps.map((number) => `#${number}`).join(', ')})`] : []),
    ...(outcome.merges.length > 0 ? [`${outcome.merges.length} merge(s), ${conflicts} conflict(s)`] : []),
  ];
  const stats = rows.length > 0 ? { stats: goalStatsRecord(rows), chartRows: rows } : {};
  if (outcome.kind === 'stopped')
    return { status: 'stopped', headline: '⏹ Goal stopped.', summary: `${facts.join(' · ')}; unfinished parallel steps were not merged.${table}`, ...stats };
  if (failed > 0 && failed === outcome.attemptedSteps)
    return { status: 'failed', headline: '✖ Goal failed: every step failed.', summary: `${facts.join(' · ')}${table}`, ...stats };
  const headline = failed > 0 ? `⚠️ Goal finished with ${failed} failed step(s).` : '✅ Goal completed.';
  return { status: 'completed', headline, summary: `${facts.join(' · ')}${table}`, ...stats };
}

async function runStep(context: GoalContext, step: PlanStep, where: StepRunContext): Promise<StepResult> {
  const { deps, session } = context;
  const character = deps.roster.characters.get(step.agent);
  if (!character) throw new TsukaError('goal_unknown_agent', `@${step.agent} is not in the roster.`);
  const label = `step ${step.number}/${context.totalSteps} · ${character.aiName}${where.parallel ? ' (parallel)' : ''}${where.rework !== undefined ? ' (rework)' : ''}`;
  session.io.activity(label);
  const previousAttempt =
    where.rework !== undefined ? [...where.previous].reverse().find((done) => done.step.number === step.number)?.result.output : undefined;
  let failedStatus = false;
  const turn = await session.io.runMember({
    character,
    allowTools: true,
    workspace: where.workspace,
    ...(where.cwd ? { cwd: where.cwd } : {}),
    loadedTools: ['report_status'],
    prompt: stepPrompt({
      objective: context.objective,
      step,
      totalSteps: context.totalSteps,
      character,
      previous: where.previous,
      parallel: where.parallel,
      ...(where.rework !== undefined ? { rework: where.rework } : {}),
      ...(previousAttempt ? { previousAttempt } : {}),
    }),
    trailer: (outcome) => {
      if (outcome.finishReason !== 'stop') return [];
      const status = outcome.status ?? parseStatusLine(outcome.text);
      failedStatus = status?.status === 'FAILED';
      const lines = [`${failedStatus ? '✖ failed' : '✅ step done'} — step ${step.number}${status?.summary ? `: ${status.summary}` : ''}`];
      if (!outcome.status && status) lines.push('⚠️ degraded protocol: status read from a STATUS: line, not report_status');
      // A step that reports nothing still counts as done; that guess is shown, as /team shows its own.
      if (!status) lines.push('⚠️ degraded protocol: no status reported — assumed COMPLETED');
      if (needsCondensing(outcome.text)) lines.push('📝 long output: a summary goes to the next steps and to memory');
      return lines;
    },
  });
  if (turn.finishReason === 'aborted' || where.signal.aborted) throw new AbortedError();
  if (turn.finishReason === 'error') throw new WorkflowTurnError(character.aiName, turn.error?.message ?? 'the model failed', { cause: turn.error });
  const summary = needsCondensing(turn.text) ? await condense(context, step, character.name, turn.text, where.signal) : undefined;
  return {
    output: turn.text,
    ok: !failedStatus,
    ...(summary ? { summary } : {}),
    stats: {
      outputTokens: turn.usage.completionTokens,
      peakContextTokens: turn.usage.peakContextTokens,
      totalTokens: turn.usage.promptTokens + turn.usage.completionTokens,
      durationMs: turn.durationMs,
      modelTimeMs: turn.usage.modelTimeMs,
    },
  };
}

// A failed summary is said in the thread and the step goes on with its raw output; a stop is thrown on.
async function condense(context: GoalContext, step: PlanStep, author: string, text: string, signal: AbortSignal): Promise<string | undefined> {
  const { deps, session } = context;
  try {
    const startedAt = Date.now();
    let usage: ModelUsage | undefined;
    const summary = await condenseStepOutput({
      model: context.model,
      text,
      signal,
      onUsage: (reported) => (usage = reported),
      effort: session.effortFor('none'),
    }).finally(() => context.modelCalls.add(SUMMARIES_ROW, usage, Date.now() - startedAt));
    await deps.memory.save({
      kind: 'run',
      scope: session.memoryAccess.scope,
      savedBy: session.memoryAccess.user,
      author,
      content: deps
        .maskSecrets(`Goal "${context.objective.slice(0, 200)}", step ${step.number} (@${step.agent}: ${step.task.slice(0, 200)}):\n${summary}`)
        .slice(0, 4_000),
      tags: ['goal', session.runId],
    });
    return summary;
  } catch (error) {
    if (error instanceof AbortedError || signal.aborted) throw error instanceof AbortedError ? error : new AbortedError(undefined, { cause: error });
    deps.logger.warn('could not condense a goal step', { error, runId: session.runId, step: step.number });
    await session.io.announce(
      `⚠️ Step ${step.number}'s long output could not be condensed (${error instanceof Error ? error.message : String(error)}); later steps see it clipped.`,
    );
    return undefined;
  }
}

async function review(context: GoalContext, supervisorName: string, step: PlanStep, result: StepResult): Promise<ReviewDecision> {
  const { deps, session } = context;
  const supervisor = deps.roster.characters.get(supervisorName);
  const author = deps.roster.characters.get(step.agent);
  // The supervisor does not judge its own step.
  if (!supervisor || !author || supervisor.name === author.name) return 'accept';
  session.io.activity(`review of step ${step.number} · ${supervisor.aiName}`);
  let verdict: ReviewDecision = 'accept';
  const turn = await session.io.runMember({
    character: supervisor,
    allowTools: true,
    loadedTools: ['cast_vote'],
    prompt: reviewPrompt({ objective: context.objective, step, author, result, supervisor }),
    trailer: (outcome) => {
      if (outcome.finishReason !== 'stop') return [];
      const vote = outcome.vote ?? parseVoteLine(outcome.text);
      const lines: string[] = [];
      if (!vote) lines.push(`🗳 no verdict — step ${step.number} accepted as is`);
      else if (vote.vote === 'APPROVE') lines.push(`🗳 step ${step.number} accepted${vote.reason ? ` — ${vote.reason}` : ''}`);
      else {
        verdict = { rework: vote.reason || 'The supervisor asked for changes without saying which.' };
        lines.push(`🗳 step ${step.number} sent back — ${verdict.rework}`);
      }
      if (!outcome.vote && vote) lines.push('⚠️ degraded protocol: verdict read from a VOTE: line, not cast_vote');
      return lines;
    },
  });
  context.reviewRows.push({
    agent: supervisor.name,
    outputTokens: turn.usage.completionTokens,
    peakContextTokens: turn.usage.peakContextTokens,
    totalTokens: turn.usage.promptTokens + turn.usage.completionTokens,
    durationMs: turn.durationMs,
    modelTimeMs: turn.usage.modelTimeMs,
  });
  if (turn.finishReason === 'aborted' || session.abort.signal.aborted) throw new AbortedError();
  if (turn.finishReason === 'error') throw new WorkflowTurnError(supervisor.aiName, turn.error?.message ?? 'the model failed', { cause: turn.error });
  return verdict;
}

// Everything the loop reports is stored, then posted in the thread by the bot.
async function show(context: GoalContext, goalEvent: GoalEvent): Promise<void> {
  const { session } = context;
  switch (goalEvent.type) {
    case 'plan': {
      await session.io.announce(`📋 Plan (${context.totalSteps} step${context.totalSteps === 1 ? '' : 's'}):\n${goalEvent.text}`);
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
