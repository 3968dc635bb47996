import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf } from '../../workflows/workflow-services.js';

type RouteNextInput = { agent: string; reason: string };

/** `route_next`: the orchestrator's choice of the next member, or END. */
export const routeNextTool: ToolImplementation<RouteNextInput> = {
  name: 'route_next',
  preview: (input) => ({ summary: `route_next ${input.agent}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) return { output: 'route_next only works inside an orchestrated /team run.', isError: true, display: 'not in a workflow' };
    const agent = input.agent.trim().replace(/^@/, '');
    workflow.routeNext({ agent: agent.toUpperCase() === 'END' ? 'END' : agent, reason: input.reason });
    return { output: `Routed to ${agent}. End your turn now.`, display: `→ ${agent}` };
  },
};
