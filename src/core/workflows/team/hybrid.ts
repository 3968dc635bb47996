/**
 * Hybrid mode: work rounds (every member in turn) each followed by discussion rounds in which every
 * member votes with `cast_vote` (or a `VOTE:` line) unless the team sets `voting: false`. The tally is shown; a member who cast no vote
 * is a missing vote, never an approval (design §6.4). A strict majority of APPROVE ends the run.
 */
import type { Vote } from '../workflow-services.js';
import { checkpointOf, restoredTurns, turnsOfCutRound } from './team-checkpoint.js';
import { memberPrompt, runTeamTurn, type TeamTurn } from './team-turn.js';
import { stoppedOutcome, type TeamOutcome, type TeamRunContext } from './team-types.js';

export interface VoteTally {
  APPROVE: number;
  CHANGE: number;
  REJECT: number;
  missing: number;
}

/** Counts votes; members without a vote are `missing`. */
export function tallyVotes(votes: ReadonlyMap<string, Vote | undefined>): VoteTally {
  const tally: VoteTally = { APPROVE: 0, CHANGE: 0, REJECT: 0, missing: 0 };
  for (const vote of votes.values()) {
    if (vote) tally[vote]++;
    else tally.missing++;
  }
  return tally;
}

/** Approved only by a strict majority of all members, missing votes included in the count. */
export const isApproved = (tally: VoteTally): boolean => tally.APPROVE * 2 > tally.APPROVE + tally.CHANGE + tally.REJECT + tally.missing;

export async function runHybrid(context: TeamRunContext): Promise<TeamOutcome> {
  const { io, team, task, members } = context;
  const rounds = team.rounds ?? context.maxRounds;
  const discussionRounds = Math.max(1, team.discussionRounds ?? 1);
  const voting = team.voting !== false;
  const turns: TeamTurn[] = restoredTurns(context.resumeFrom, members);
  let changes: string[] = [...(context.resumeFrom?.changes ?? [])];
  for (let round = (context.resumeFrom?.roundsDone ?? 0) + 1; round <= rounds; round++) {
    await io.announce(`— Work round ${round} of ${rounds} —`);
    // Resume within a work round: who reported in it before the restart is not asked again (votes are asked again).
    const worked = new Set(turnsOfCutRound(context.resumeFrom, round, turns).map((turn) => turn.outcome.character.name));
    for (const member of members) {
      if (worked.has(member.name)) continue;
      if (io.signal.aborted) return stoppedOutcome();
      io.activity(`work round ${round}/${rounds} · ${member.aiName} is working`);
      const extra = changes.length > 0 ? `The last vote asked for changes:\n${changes.join('\n')}` : undefined;
      turns.push(
        await runTeamTurn(io, {
          character: member,
          prompt: memberPrompt({ teamName: team.displayName, task, turns, character: member, ...(extra ? { extra } : {}) }),
        }),
      );
      worked.add(member.name);
      if (io.signal.aborted) return stoppedOutcome();
      await context.onTurnEnd?.(checkpointOf(round - 1, turns, changes, worked.size));
    }
    let votes = new Map<string, Vote | undefined>();
    const reasons: string[] = [];
    for (let discussion = 1; discussion <= discussionRounds; discussion++) {
      await io.announce(`— Discussion ${discussion} of ${discussionRounds} (round ${round}) —`);
      votes = new Map();
      reasons.length = 0;
      for (const member of members) {
        if (io.signal.aborted) return stoppedOutcome();
        io.activity(`discussion ${discussion}/${discussionRounds} · ${member.aiName} is voting`);
        const turn = await runTeamTurn(io, {
          character: member,
          ...(voting ? { expect: 'vote' as const, loadedTools: ['cast_vote'] } : {}),
          prompt: memberPrompt({
            teamName: team.displayName,
            task,
            turns,
            character: member,
            extra: voting
              ? 'Discussion: judge the result so far. Give your view briefly, then call cast_vote with APPROVE, CHANGE or REJECT and your reason (or write "VOTE: APPROVE — reason").'
              : 'Discussion: judge the result so far and say what the next work round should change.',
          }),
        });
        votes.set(member.name, turn.vote?.vote);
        if (turn.vote && turn.vote.vote !== 'APPROVE') reasons.push(`- ${member.aiName} (${turn.vote.vote}): ${turn.vote.reason}`);
      }
    }
    if (io.signal.aborted) return stoppedOutcome();
    if (!voting) {
      await context.onRoundEnd?.(checkpointOf(round, turns));
      continue;
    }
    const tally = tallyVotes(votes);
    const missing = members.filter((member) => votes.get(member.name) === undefined).map((member) => member.aiName);
    const approved = isApproved(tally);
    await io.announce(
      `🗳 Tally: ${tally.APPROVE} approve · ${tally.CHANGE} change · ${tally.REJECT} reject · ${tally.missing} missing${missing.length > 0 ? ` (no vote from ${missing.join(', ')})` : ''} — ${approved ? 'approved' : 'not approved'}`,
    );
    if (approved) return { status: 'completed', summary: `Approved in round ${round} (${tally.APPROVE} of ${members.length}).` };
    if (tally.REJECT * 2 > members.length) return { status: 'failed', summary: `Rejected by the majority in round ${round}.` };
    changes = reasons;
    await context.onRoundEnd?.(checkpointOf(round, turns, changes));
  }
  return { status: 'incomplete', summary: `No majority approval after ${rounds} rounds.` };
}
