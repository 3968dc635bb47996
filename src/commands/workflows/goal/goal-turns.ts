/** The turns of a /goal run: each step's agent, the condensing of a long output, the supervisor's review. */
import { AbortedError, TsukaError } from '../../../core/errors.js';
import type { LanguageModel, ModelUsage } from '../../../core/model/language-model.js';
import { condenseStepOutput, needsCondensing } from '../../../core/workflows/goal/condense.js';
import type { GoalStatsRow } from '../../../core/workflows/goal/goal-stats.js';
import type { PlanStep } from '../../../core/workflows/goal/plan-parser.js';
import type { ReviewDecision, StepResult, StepRunContext } from '../../../core/workflows/goal/run-goal.js';
import { parseStatusLine, parseVoteLine } from '../../../core/workflows/protocol.js';
import { WorkflowTurnError } from '../../../core/workflows/workflow-turn-error.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import { SUMMARIES_ROW, type ModelCallMeter } from './goal-model-calls.js';
import { reviewPrompt, stepPrompt } from './goal-prompts.js';
import type { WorkflowSession } from '../workflow-session.js';
import type { MemberTurnOutcome } from '../../../core/workflows/workflow-io.js';

export interface GoalContext {
  deps: CommandDependencies;
  session: WorkflowSession;
  model: LanguageModel;
  objective: string;
  totalSteps: number;
  /** The supervisor's review turns: not steps, but their tokens and time belong in the table. */
  reviewRows: GoalStatsRow[];
  /** Each step's tokens and model time, for the budget. */
  stepRows: GoalStatsRow[];
  /** What an earlier attempt (before a restart) spent, for the budget. */
  spentBefore: { tokens: number; modelTimeMs: number };
  /** The planner and summary calls: no agent's turn, but part of what the goal cost. */
  modelCalls: ModelCallMeter;
  /**
   * Who reviews every step, fixed once the plan is known: the supervisor the plan names (its first
   * step by a supervisor-role character); none when the plan names none, so every run of the same
   * plan is reviewed the same way whatever else the roster holds.
   */
  reviewer?: string;
  /** Whether the plan text was already shown on a plan card (not announced again). */
  planCard: boolean;
}

/**
 * A stopped run is thrown on as a stop; a failed model turn as the character's failure. Without
 * `signal`, a turn that ended by itself stands even when the run was stopped just after it.
 */
export function throwIfTurnFailed(turn: MemberTurnOutcome, who: string, signal?: AbortSignal): void {
  if (turn.finishReason === 'aborted' || signal?.aborted) throw new AbortedError();
  if (turn.finishReason === 'error') throw new WorkflowTurnError(who, turn.error?.message ?? 'the model failed', { cause: turn.error });
}

/** One turn's row of the goal's stats table (without its agent). */
export function turnStats(turn: MemberTurnOutcome): Omit<GoalStatsRow, 'agent'> {
  return {
    outputTokens: turn.usage.completionTokens,
    peakContextTokens: turn.usage.peakContextTokens,
    totalTokens: turn.usage.promptTokens + turn.usage.completionTokens,
    durationMs: turn.durationMs,
    modelTimeMs: turn.usage.modelTimeMs,
  };
}

export async function runStep(context: GoalContext, step: PlanStep, where: StepRunContext): Promise<StepResult> {
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
  // A step that reported (its message says done) is done: a stop or shutdown right after it does
  // not throw it away, or Resume would run it again and ask its approvals a second time.
  throwIfTurnFailed(turn, character.aiName);
  const stats = turnStats(turn);
  context.stepRows.push({ agent: step.agent, ...stats });
  const summary = needsCondensing(turn.text) && !where.signal.aborted ? await condense(context, step, character.name, turn.text, where.signal) : undefined;
  return { output: turn.text, ok: !failedStatus, ...(summary ? { summary } : {}), stats };
}

// A failed summary is said in the thread and the step goes on with its raw output, as after a stop.
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
    // Stopped while condensing: the step stands with its raw output (it has reported); the loop sees the stop.
    if (error instanceof AbortedError || signal.aborted) return undefined;
    deps.logger.warn('could not condense a goal step', { error, runId: session.runId, step: step.number });
    await session.io.announce(
      `⚠️ Step ${step.number}'s long output could not be condensed (${error instanceof Error ? error.message : String(error)}); later steps see it clipped.`,
    );
    return undefined;
  }
}

export async function review(context: GoalContext, supervisorName: string, step: PlanStep, result: StepResult): Promise<ReviewDecision> {
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
  context.reviewRows.push({ agent: supervisor.name, ...turnStats(turn) });
  throwIfTurnFailed(turn, supervisor.aiName, session.abort.signal);
  return verdict;
}
