import type { ToolImplementation } from '../tool.js';
import { castVoteTool } from './cast-vote.js';
import { postNoteTool } from './post-note.js';
import { readNotesTool } from './read-notes.js';
import { recordDecisionTool } from './record-decision.js';
import { reportStatusTool } from './report-status.js';
import { requestCallTool } from './request-call.js';
import { requestGoalTool } from './request-goal.js';
import { requestTeamTool } from './request-team.js';
import { routeNextTool } from './route-next.js';
import { sendMessageTool } from './send-message.js';
import { spawnAgentTool } from './spawn-agent.js';

/**
 * The coordination and escalation tools. They hold no state: each reads the run it belongs to
 * from `context.services.workflow` (or `context.services.escalation` for `request_*`).
 */
export function coordinationToolImplementations(): ToolImplementation[] {
  return [
    reportStatusTool,
    routeNextTool,
    castVoteTool,
    recordDecisionTool,
    postNoteTool,
    readNotesTool,
    sendMessageTool,
    spawnAgentTool,
    requestGoalTool,
    requestTeamTool,
    requestCallTool,
  ] as ToolImplementation[];
}
