/**
 * The tools of a plain conversation: the plain tools, plus `report_status` (a closing summary),
 * `spawn_agent` (a sub-agent on a sub-task; `run-turn.ts` gives the turn its spawner) and — when
 * workflows exist — `request_goal|team|call`, which let an agent escalate after approval (they are
 * RESTRICTED), with an escalation service bound to the conversation's surface, channel and user.
 * Team-only coordination (route_next, cast_vote, the blackboard, messages) stays out: a plain
 * conversation has no team to coordinate.
 */
import type { CommandDependencies } from '../command-dependencies.js';
import type { ChatSurface, UserRef } from '../chat-surface.js';
import type { WorkflowHandlers } from '../workflow-handlers.js';
import type { ToolRegistry } from '../../core/tools/tool.js';
import { createToolRegistry } from '../../core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../core/tools/impl/coordination-tools.js';
import { combineRegistries } from '../../core/workflows/combine-registries.js';
import { createEscalationService } from './escalation-service.js';

const ESCALATION_TOOLS = ['request_goal', 'request_team', 'request_call'];
/** Coordination tools that mean something in a plain conversation. */
export const CONVERSATION_TOOLS: readonly string[] = ['report_status', 'spawn_agent'];
const registries = new WeakMap<ToolRegistry, Map<boolean, ToolRegistry>>();

/** The plain tools joined with the conversation's coordination tools (and escalation when `escalation`). */
export function conversationToolRegistry(deps: Pick<CommandDependencies, 'tools' | 'toolSchemas' | 'logger'>, escalation: boolean): ToolRegistry {
  const cache = registries.get(deps.tools) ?? new Map<boolean, ToolRegistry>();
  registries.set(deps.tools, cache);
  let combined = cache.get(escalation);
  if (!combined) {
    const wanted = new Set([...CONVERSATION_TOOLS, ...(escalation ? ESCALATION_TOOLS : [])]);
    const implementations = coordinationToolImplementations().filter((tool) => wanted.has(tool.name) && deps.toolSchemas.has(tool.name));
    const schemas = new Map([...deps.toolSchemas].filter(([name]) => implementations.some((tool) => tool.name === name)));
    combined = combineRegistries(deps.tools, createToolRegistry({ schemas, implementations, logger: deps.logger }));
    cache.set(escalation, combined);
  }
  return combined;
}

export function escalationTooling(
  deps: CommandDependencies,
  handlers: WorkflowHandlers,
  turn: { surface: ChatSurface; channel: string; user: UserRef; userName?: string },
): { tools: ToolRegistry; services?: Record<string, unknown> } {
  if (Object.keys(handlers).length === 0) return { tools: conversationToolRegistry(deps, false) };
  return {
    tools: conversationToolRegistry(deps, true),
    services: {
      escalation: createEscalationService({ deps, handlers, surface: turn.surface, channel: turn.channel, user: turn.user, userName: turn.userName }),
    },
  };
}
