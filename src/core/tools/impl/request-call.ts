import type { ToolImplementation } from '../tool.js';
import { escalate } from '../../workflows/escalate.js';

type RequestCallInput = { participants: string[]; topic: string; reason: string };

/** `request_call`: starts a /call debate in its own thread, after approval (RESTRICTED). */
export const requestCallTool: ToolImplementation<RequestCallInput> = {
  name: 'request_call',
  preview: (input) => ({
    summary: `request_call ${input.participants.join(', ')}: ${input.topic.slice(0, 60)}`,
    details: [`participants: ${input.participants.join(', ')}`, `topic: ${input.topic}`, `why: ${input.reason}`],
  }),
  execute: (input, context) => escalate({ kind: 'call', participants: input.participants, topic: input.topic, reason: input.reason }, context),
};
