import type { AgentControlService, ToolContext } from './tool.js';
import { ToolFailureError } from './tool-failure-error.js';

/**
 * The agent-control service from `context.services.agent`, checked at runtime because services
 * are an open bag filled by whoever runs the agent.
 */
export function requireAgentControl(context: ToolContext, toolName: string): AgentControlService {
  const candidate = context.services.agent as Partial<AgentControlService> | undefined;
  if (candidate && typeof candidate.loadTools === 'function' && typeof candidate.switchRole === 'function' && typeof candidate.addRole === 'function') {
    return candidate as AgentControlService;
  }
  throw new ToolFailureError(`${toolName} is not available here: this agent cannot change its own tools or roles.`);
}

/** `context.services.toolNames` when the runner provides it as a list of strings. */
export function knownToolNames(context: ToolContext): string[] | undefined {
  const names = context.services.toolNames;
  return Array.isArray(names) && names.every((name) => typeof name === 'string') ? names : undefined;
}
