import type { ToolImplementation } from '../tool.js';
import { escalate } from '../../workflows/escalate.js';

type RequestGoalInput = { objective: string; reason: string };

/** `request_goal`: starts a /goal run in its own thread, after approval (RESTRICTED). */
export const requestGoalTool: ToolImplementation<RequestGoalInput> = {
  name: 'request_goal',
  preview: (input) => ({ summary: `request_goal ${input.objective.slice(0, 80)}`, details: [`objective: ${input.objective}`, `why: ${input.reason}`] }),
  execute: (input, context) => escalate({ kind: 'goal', objective: input.objective, reason: input.reason }, context),
};
