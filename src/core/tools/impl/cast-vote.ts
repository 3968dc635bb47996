import type { ToolImplementation } from '../tool.js';
import { workflowServiceOf, type Vote } from '../../workflows/workflow-services.js';

type CastVoteInput = { vote: Vote; reason: string };

/** `cast_vote`: a member's vote in a team discussion. */
export const castVoteTool: ToolImplementation<CastVoteInput> = {
  name: 'cast_vote',
  preview: (input) => ({ summary: `cast_vote ${input.vote}` }),
  async execute(input, context) {
    const workflow = workflowServiceOf(context);
    if (!workflow) return { output: 'cast_vote only works inside a /team discussion.', isError: true, display: 'not in a workflow' };
    workflow.castVote({ vote: input.vote, reason: input.reason });
    return { output: `Vote ${input.vote} recorded.`, display: input.vote.toLowerCase() };
  },
};
