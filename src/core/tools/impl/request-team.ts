import type { ToolImplementation } from '../tool.js';
import { escalate } from '../../workflows/escalate.js';

type RequestTeamInput = { team: string; task: string; reason: string };

/** `request_team`: starts a /team run in its own thread, after approval (RESTRICTED). */
export const requestTeamTool: ToolImplementation<RequestTeamInput> = {
  name: 'request_team',
  preview: (input) => ({
    summary: `request_team ${input.team} ${input.task.slice(0, 60)}`,
    details: [`team: ${input.team}`, `task: ${input.task}`, `why: ${input.reason}`],
  }),
  execute: (input, context) => escalate({ kind: 'team', team: input.team, task: input.task, reason: input.reason }, context),
};
