/**
 * In a plain conversation, `request_goal|team|call` let an agent escalate to a workflow (after
 * approval: they are RESTRICTED). Their implementations join the plain tools here, with an
 * escalation service bound to the conversation's surface, channel and user.
 */
import type { CommandDependencies } from '../command-dependencies.js';
import type { ChatSurface, UserRef } from '../chat-surface.js';
import type { WorkflowHandlers } from '../workflow-handlers.js';
import type { ToolRegistry } from '../../core/tools/tool.js';
import { createToolRegistry } from '../../core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../core/tools/impl/coordination-tools.js';
import { combineRegistries } from '../../core/workflows/combine-registries.js';
import { createEscalationService } from './escalation-service.js';

const ESCALATION_TOOLS = new Set(['request_goal', 'request_team', 'request_call']);
const registries = new WeakMap<ToolRegistry, ToolRegistry>();

function withEscalationTools(deps: CommandDependencies): ToolRegistry {
  let combined = registries.get(deps.tools);
  if (!combined) {
    const implementations = coordinationToolImplementations().filter((tool) => ESCALATION_TOOLS.has(tool.name) && deps.toolSchemas.has(tool.name));
    const schemas = new Map([...deps.toolSchemas].filter(([name]) => implementations.some((tool) => tool.name === name)));
    combined = combineRegistries(deps.tools, createToolRegistry({ schemas, implementations, logger: deps.logger }));
    registries.set(deps.tools, combined);
  }
  return combined;
}

export function escalationTooling(
  deps: CommandDependencies,
  handlers: WorkflowHandlers,
  turn: { surface: ChatSurface; channel: string; user: UserRef; userName?: string },
): { tools: ToolRegistry; services?: Record<string, unknown> } {
  if (Object.keys(handlers).length === 0) return { tools: deps.tools };
  return {
    tools: withEscalationTools(deps),
    services: { escalation: createEscalationService({ deps, handlers, surface: turn.surface, channel: turn.channel, user: turn.user, userName: turn.userName }) },
  };
}
