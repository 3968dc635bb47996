import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf, type TurnStatus } from '../../workflows/workflow-services.js';

type ReportStatusInput = { status: TurnStatus; summary: string; next_hint?: string };

const NOT_IN_WORKFLOW = 'report_status only works inside a /team or /goal run.';

/** `report_status`: ends a member's turn with COMPLETED / CONTINUE / FAILED and a summary. */
export const reportStatusTool: ToolImplementation<ReportStatusInput> = {
  name: 'report_status',
  preview: (input) => ({ summary: `report_status ${input.status}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) return { output: NOT_IN_WORKFLOW, isError: true, display: 'not in a workflow' };
    workflow.reportStatus({ status: input.status, summary: input.summary, ...(input.next_hint ? { nextHint: input.next_hint } : {}) });
    return { output: `Status ${input.status} recorded. End your turn now.`, display: input.status.toLowerCase() };
  },
};
