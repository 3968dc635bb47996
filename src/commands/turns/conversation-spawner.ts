/**
 * `spawn_agent` in a plain conversation: the sub-agent runs with the turn's runner, permissions and
 * jail, one level deep (the same depth limit and tool ceiling as in workflows), its events stored
 * with the run and its report kept in the transcript.
 */
import type { AgentEvent } from '../../core/agent/agent-events.js';
import type { AgentRunner, TurnInput } from '../../core/agent/agent-runner.js';
import type { ReasoningEffort } from '../../core/model/language-model.js';
import { createBlackboard } from '../../core/workflows/blackboard.js';
import { createMemberInbox } from '../../core/workflows/member-inbox.js';
import { createSubAgentSpawner } from '../../core/workflows/sub-agent.js';
import type { SubAgentSpawner, WorkflowToolService } from '../../core/workflows/workflow-services.js';
import type { CommandDependencies } from '../command-dependencies.js';

export interface ConversationSpawnerOptions {
  deps: Pick<CommandDependencies, 'roster' | 'runs' | 'maskSecrets' | 'workspace'>;
  runner: AgentRunner;
  runId: string;
  requesterId: string;
  /** The conversation's memory scope, read into the sub-agent's prompt. */
  memoryScope: string;
  toolContext: TurnInput['toolContext'];
  onEvent(agent: string, event: AgentEvent): void;
  effortPin?: ReasoningEffort;
}

export function createConversationSpawner(options: ConversationSpawnerOptions): SubAgentSpawner {
  const { deps, runId } = options;
  // Sub-agents of one conversation turn share a scratch blackboard; nobody else sees it.
  const blackboard = createBlackboard();
  const inbox = createMemberInbox();
  const serviceFor = (depth: number, agent: { name: string }): WorkflowToolService => ({
    runId,
    depth,
    blackboard,
    inbox,
    members: [agent.name],
    reportStatus: () => undefined,
    routeNext: () => undefined,
    castVote: () => undefined,
    spawn,
  });
  const spawn: SubAgentSpawner = createSubAgentSpawner({
    runner: options.runner,
    roster: deps.roster,
    runId,
    requesterId: options.requesterId,
    memoryScope: options.memoryScope,
    toolContext: options.toolContext,
    serviceFor,
    onEvent: options.onEvent,
    ...(options.effortPin ? { effortPin: options.effortPin } : {}),
    // The sub-agent's text, reasoning and tools are already in the transcript through `onEvent`.
    onReport: async () => undefined,
  });
  return spawn;
}
