import type { ToolImplementation } from '../tool.js';
import { MAX_SPAWN_DEPTH, workflowServiceOf, type SubAgentSpawner } from '../../workflows/workflow-services.js';

type SpawnAgentInput = { task: string; roleName?: string; charName?: string };

/** `spawn_agent`: an isolated sub-agent run to completion on a sub-task; nesting is bounded. */
export const spawnAgentTool: ToolImplementation<SpawnAgentInput> = {
  name: 'spawn_agent',
  preview: (input) => ({ summary: `spawn_agent ${input.charName ?? input.roleName ?? ''} ${input.task.slice(0, 60)}`.replace(/\s+/g, ' ').trim() }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    // Outside a workflow, a plain conversation may offer its own spawner (depth 0).
    const conversationSpawner = context.services.spawnAgent as SubAgentSpawner | undefined;
    const spawn = workflow?.spawn ?? (typeof conversationSpawner === 'function' ? conversationSpawner : undefined);
    if (!spawn) return { output: 'spawn_agent is not available here.', isError: true, display: 'unavailable' };
    if ((workflow?.depth ?? 0) >= MAX_SPAWN_DEPTH) {
      return {
        output: `Sub-agents may not spawn further sub-agents beyond depth ${MAX_SPAWN_DEPTH}; do the task yourself.`,
        isError: true,
        display: 'depth limit',
      };
    }
    const report = await spawn(
      { task: input.task, ...(input.roleName ? { roleName: input.roleName } : {}), ...(input.charName ? { charName: input.charName } : {}) },
      context,
    );
    return { output: report, display: `${report.length} chars` };
  },
};
