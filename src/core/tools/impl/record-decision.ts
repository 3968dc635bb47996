import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf, type RecordedDecision } from '../../workflows/workflow-services.js';

type RecordDecisionInput = { decision: string; options?: string[]; votes?: RecordedDecision['votes'] };

/** `record_decision`: the /call moderator's decision, the options argued and each participant's vote (issue 35). */
export const recordDecisionTool: ToolImplementation<RecordDecisionInput> = {
  name: 'record_decision',
  preview: (input) => ({ summary: `record_decision ${input.decision.slice(0, 80)}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow?.recordDecision)
      return { output: 'record_decision only works in the closing turn of a /call moderator.', isError: true, display: 'not in a /call' };
    const decision = input.decision.trim();
    if (decision === '') return { output: 'The decision is empty: give it in one line.', isError: true, display: 'empty decision' };
    workflow.recordDecision({
      decision,
      options: (input.options ?? []).map((option) => option.trim()).filter(Boolean),
      votes: (input.votes ?? []).map((vote) => ({
        participant: vote.participant.trim().replace(/^@/, ''),
        vote: vote.vote,
        ...(vote.reason ? { reason: vote.reason.trim() } : {}),
      })),
    });
    return { output: 'Decision recorded. Finish your synthesis in plain text now.', display: 'decision recorded' };
  },
};
