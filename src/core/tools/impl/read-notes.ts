import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf } from '../../workflows/workflow-services.js';

type ReadNotesInput = { prefix?: string };

/** `read_notes`: reads the run's blackboard. */
export const readNotesTool: ToolImplementation<ReadNotesInput> = {
  name: 'read_notes',
  preview: (input) => ({ summary: `read_notes${input.prefix ? ` ${input.prefix}` : ''}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) return { output: 'read_notes only works inside a multi-agent run.', isError: true, display: 'not in a workflow' };
    const notes = workflow.blackboard.read(input.prefix);
    if (notes.length === 0) return { output: input.prefix ? `No notes start with "${input.prefix}".` : 'The blackboard is empty.', display: '0 notes' };
    return { output: notes.map((note) => `[${note.key}] (${note.author}) ${note.value}`).join('\n'), display: `${notes.length} notes` };
  },
};
