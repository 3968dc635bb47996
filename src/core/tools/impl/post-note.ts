import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf } from '../../workflows/workflow-services.js';

type PostNoteInput = { key: string; value: string };

/** `post_note`: writes to the run's blackboard (this run's members only). */
export const postNoteTool: ToolImplementation<PostNoteInput> = {
  name: 'post_note',
  preview: (input) => ({ summary: `post_note ${input.key}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow)
      return { output: 'post_note only works inside a multi-agent run; use save_memory to remember something.', isError: true, display: 'not in a workflow' };
    workflow.blackboard.post({ key: input.key, value: input.value, author: context.agentName });
    return { output: `Note "${input.key}" posted.`, display: `${input.value.length} chars` };
  },
};
