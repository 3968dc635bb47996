import type { ToolContext, ToolResult } from '../tools/tool.js';
import { escalationServiceOf, workflowServiceOf, type EscalationRequest } from './workflow-services.js';

/** Shared by `request_goal|team|call`: refused inside a workflow (no recursion), else starts the run. */
export async function escalate(request: EscalationRequest, context: ToolContext): Promise<ToolResult> {
  if (workflowServiceOf(context)) {
    return {
      output: `request_${request.kind} is not allowed inside a multi-agent run; finish your part here instead.`,
      isError: true,
      display: 'refused inside a workflow',
    };
  }
  const service = escalationServiceOf(context);
  if (!service) return { output: `request_${request.kind} is not available here.`, isError: true, display: 'unavailable' };
  const started = await service.start(request, context);
  return { output: started, display: `/${request.kind} started` };
}
