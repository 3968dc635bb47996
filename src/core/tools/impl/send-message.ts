import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf } from '../../workflows/workflow-services.js';

type SendMessageInput = { target: string; content: string };

/** `send_message`: a direct message to another member of the same run, shown at their next turn. */
export const sendMessageTool: ToolImplementation<SendMessageInput> = {
  name: 'send_message',
  preview: (input) => ({ summary: `send_message → ${input.target}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) return { output: 'send_message only works inside a multi-agent run.', isError: true, display: 'not in a workflow' };
    const wanted = input.target.trim().replace(/^@/, '').toLowerCase();
    const target = workflow.members.find((member) => member.toLowerCase() === wanted);
    if (!target)
      return { output: `"${input.target}" is not a member of this run. Members: ${workflow.members.join(', ')}.`, isError: true, display: 'unknown member' };
    workflow.inbox.send({ from: context.agentName, to: target, content: input.content });
    return { output: `Message queued for ${target}.`, display: `→ ${target}` };
  },
};
