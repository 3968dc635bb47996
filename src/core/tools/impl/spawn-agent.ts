import type { ToolImplementation } from '../tool.js';
import { MAX_SPAWN_DEPTH, workflowServiceOf } from '../../workflows/workflow-services.js';

type SpawnAgentInput = { task: string; roleName?: string; charName?: string };

/** `spawn_agent`: an isolated sub-agent run to completion on a sub-task; nesting is bounded. */
export const spawnAgentTool: ToolImplementation<SpawnAgentInput> = {
  name: 'spawn_agent',
  preview: (input) => ({ summary: `spawn_agent ${input.charName ?? input.roleName ?? ''} ${input.task.slice(0, 60)}`.replace(/\s+/g, ' ').trim() }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow?.spawn) return { output: 'spawn_agent is not available here.', isError: true, display: 'unavailable' };
    if (workflow.depth >= MAX_SPAWN_DEPTH) {
      return { output: `Sub-agents may not spawn further sub-agents beyond depth ${MAX_SPAWN_DEPTH}; do the task yourself.`, isError: true, display: 'depth limit' };
    }
    const report = await workflow.spawn({ task: input.task, ...(input.roleName ? { roleName: input.roleName } : {}), ...(input.charName ? { charName: input.charName } : {}) }, context);
    return { output: report, display: `${report.length} chars` };
  },
};
