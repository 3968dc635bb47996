/**
 * One agent turn of a /goal run, shown in the run's thread under the agent's identity. Unlike a
 * team member's turn, each turn says where it works: a parallel step gets its staging copy as its
 * jail and as the working directory of its commands (design §6.6), and so do its sub-agents.
 */
import type { AgentEvent, TurnFinishReason } from '../../core/agent/agent-events.js';
import type { AgentRunner, TurnUsage } from '../../core/agent/agent-runner.js';
import { createAgentRunner } from '../../core/agent/create-agent-runner.js';
import type { Character } from '../../core/data/types.js';
import type { Logger } from '../../core/logger.js';
import type { LanguageModel } from '../../core/model/language-model.js';
import type { PermissionManager } from '../../core/safety/permission-manager.js';
import type { ModelTier, Workspace } from '../../core/tools/tool.js';
import { createBlackboard } from '../../core/workflows/blackboard.js';
import { createMemberInbox } from '../../core/workflows/member-inbox.js';
import { createSubAgentSpawner } from '../../core/workflows/sub-agent.js';
import type { StatusReport, VoteCast, WorkflowToolService } from '../../core/workflows/workflow-services.js';
import { identityOf } from '../character-selection.js';
import type { ChatSurface, ThreadRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import { recordAgentEvent } from '../record-agent-event.js';
import { createReplyRenderer } from '../reply-renderer.js';
import { workflowToolRegistry } from './workflow-registry.js';

export interface GoalTurnRequest {
  character: Character;
  prompt: string;
  /** The jail of the turn's tools: the workspace, or a parallel step's staging copy. */
  workspace: Workspace;
  /** Where `execute_command` runs; the staging folder of a parallel step. */
  cwd?: string;
  /** Tools offered from the first round (the role must allow them). */
  loadedTools?: string[];
  /** Lines closing the agent's message, worked out from the outcome. */
  trailer?(outcome: GoalTurnOutcome): string[];
}

export interface GoalTurnOutcome {
  text: string;
  finishReason: TurnFinishReason;
  error?: Error;
  usage: TurnUsage;
  durationMs: number;
  /** What the agent reported through `report_status` / `cast_vote` (the last call wins). */
  status?: StatusReport;
  vote?: VoteCast;
}

export interface GoalTurnRunner {
  run(request: GoalTurnRequest): Promise<GoalTurnOutcome>;
}

export interface GoalTurnRunnerOptions {
  deps: CommandDependencies;
  model: { model: LanguageModel; tier: ModelTier };
  surface: ChatSurface;
  thread: ThreadRef;
  runId: string;
  requester: string;
  /** The session's permissions: approvals are asked in the run's thread. */
  permissions: PermissionManager;
  signal: AbortSignal;
  /** The agents of the plan, for `send_message` targets. */
  members: () => readonly string[];
  logger: Logger;
  now?: () => number;
}

/** A turn runner sharing one blackboard and inbox across the whole goal. */
export function createGoalTurnRunner(options: GoalTurnRunnerOptions): GoalTurnRunner {
  const { deps, surface, thread, runId, logger } = options;
  const now = options.now ?? Date.now;
  const tools = workflowToolRegistry(deps);
  const runner: AgentRunner = createAgentRunner({
    model: options.model.model,
    tools,
    permissions: options.permissions,
    memory: deps.memory,
    logger,
    settings: { ...deps.settings.agent, tier: options.model.tier },
  });
  const blackboard = createBlackboard();
  const inbox = createMemberInbox();

  return {
    async run(request) {
      const { character } = request;
      const waiting = inbox.take(character.name);
      const prompt = waiting.length > 0 ? `Messages for you from the team:\n${waiting.map((message) => `- ${message.from}: ${message.content}`).join('\n')}\n\n${request.prompt}` : request.prompt;
      // Events of one turn are stored in order before they are shown; parallel turns keep their own chains.
      let chain: Promise<void> = Promise.resolve();
      const record = (agent: string, agentEvent: AgentEvent, show?: (event: AgentEvent) => void): void => {
        chain = chain
          .then(() => recordAgentEvent(deps.runs, deps.maskSecrets, runId, agent, agentEvent))
          .then(() => show?.(agentEvent))
          .catch((error: unknown) => logger.warn('could not record or render an event', { error }));
      };
      const toolContext = {
        workspace: request.workspace,
        childEnv: deps.childEnv,
        maskSecrets: deps.maskSecrets,
        logger,
        services: { memory: deps.memory, memoryScope: deps.workspace.root, toolNames: tools.names(), ...(request.cwd ? { cwd: request.cwd } : {}) },
      };
      const serviceFor = (depth: number, sinks: { status?(report: StatusReport): void; vote?(vote: VoteCast): void }): WorkflowToolService => ({
        runId,
        depth,
        blackboard,
        inbox,
        members: options.members(),
        reportStatus: (report) => sinks.status?.(report),
        routeNext: () => undefined,
        castVote: (vote) => sinks.vote?.(vote),
        spawn: createSubAgentSpawner({
          runner,
          roster: deps.roster,
          runId,
          requesterId: options.requester,
          memoryScope: deps.workspace.root,
          toolContext,
          serviceFor: (nextDepth) => serviceFor(nextDepth, {}),
          onEvent: (agent, agentEvent) => record(agent, agentEvent),
          onReport: async (agent, report) => {
            await deps.runs.appendEvent(runId, { type: 'message', agent, text: deps.maskSecrets(report) });
          },
        }),
      });

      const renderer = createReplyRenderer({ surface, thread, identity: identityOf(character), onError: (error) => logger.warn('reply edit failed', { error }) });
      await renderer.start();
      let status: StatusReport | undefined;
      let vote: VoteCast | undefined;
      const startedAt = now();
      const result = await runner.runTurn({
        character,
        roster: deps.roster,
        history: [],
        userMessage: prompt,
        runId,
        requesterId: options.requester,
        ...(request.loadedTools ? { loadedTools: request.loadedTools } : {}),
        toolContext: { ...toolContext, services: { ...toolContext.services, workflow: serviceFor(0, { status: (report) => (status = report), vote: (cast) => (vote = cast) }) } },
        memoryScope: deps.workspace.root,
        signal: options.signal,
        onEvent: (agentEvent) => record(character.name, agentEvent, (shown) => renderer.handle(shown)),
      });
      await chain;
      const outcome: GoalTurnOutcome = {
        text: result.text,
        finishReason: result.finishReason,
        usage: result.usage,
        durationMs: now() - startedAt,
        ...(result.error ? { error: result.error } : {}),
        ...(status ? { status } : {}),
        ...(vote ? { vote } : {}),
      };
      const trailer = [...(request.trailer?.(outcome) ?? [])];
      if (result.finishReason === 'aborted') trailer.push('⏹ Stopped.');
      if (result.finishReason === 'error') trailer.push(`⚠️ ${result.error?.message ?? 'The model failed.'}`);
      await deps.runs.appendEvent(runId, { type: 'message', agent: character.name, text: deps.maskSecrets(result.text) });
      if (trailer.length > 0) await deps.runs.appendEvent(runId, { type: 'note', text: deps.maskSecrets(`${character.name}: ${trailer.join(' | ')}`) });
      await renderer.finish(trailer.length > 0 ? `\n${trailer.join('\n')}` : undefined);
      return outcome;
    },
  };
}
