import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf, type TurnStatus } from '../../workflows/workflow-services.js';

type ReportStatusInput = { status: TurnStatus; summary: string; next_hint?: string };

/**
 * `report_status`: in a /team or /goal run it ends a member's turn with COMPLETED / CONTINUE /
 * FAILED and a summary; in a plain conversation it is the turn's closing summary, kept in the
 * run's transcript (the call and its arguments are stored like every tool call).
 */
export const reportStatusTool: ToolImplementation<ReportStatusInput> = {
  name: 'report_status',
  preview: (input) => ({ summary: `report_status ${input.status}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) {
      return {
        output: `Closing summary recorded (${input.status}): ${input.summary}\nNow give your final answer to the user in plain text.`,
        display: input.status.toLowerCase(),
      };
    }
    workflow.reportStatus({ status: input.status, summary: input.summary, ...(input.next_hint ? { nextHint: input.next_hint } : {}) });
    return { output: `Status ${input.status} recorded. End your turn now.`, display: input.status.toLowerCase() };
  },
};
