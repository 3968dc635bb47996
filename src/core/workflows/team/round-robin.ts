/**
 * Round-robin mode: every member in turn, for `rounds` (default `teamMaxRounds`, 3) rounds, each at
 * most `maxRoundsPerMember` times; ends early when a whole round reports COMPLETED.
 */
import { checkpointOf, restoredTurns, turnCounts, turnsOfCutRound } from './team-checkpoint.js';
import { memberPrompt, runTeamTurn, type TeamTurn } from './team-turn.js';
import { stoppedOutcome, type TeamOutcome, type TeamRunContext } from './team-types.js';

export async function runRoundRobin(context: TeamRunContext): Promise<TeamOutcome> {
  const { io, team, task } = context;
  const rounds = team.rounds ?? context.maxRounds;
  const turns: TeamTurn[] = restoredTurns(context.resumeFrom, context.members);
  const turnCount = turnCounts(turns);
  for (let round = (context.resumeFrom?.roundsDone ?? 0) + 1; round <= rounds; round++) {
    // Resume within a round: who reported in it before the restart is not asked again.
    const thisRound: TeamTurn[] = turnsOfCutRound(context.resumeFrom, round, turns);
    const spoke = new Set(thisRound.map((turn) => turn.outcome.character.name));
    const speakers = context.members.filter(
      (member) => spoke.has(member.name) || team.maxRoundsPerMember === undefined || (turnCount.get(member.name) ?? 0) < team.maxRoundsPerMember,
    );
    if (speakers.length === 0) return { status: 'incomplete', summary: `Every member has had ${team.maxRoundsPerMember} turns.` };
    await io.announce(`— Round ${round} of ${rounds} —`);
    for (const member of speakers) {
      if (spoke.has(member.name)) continue;
      if (io.signal.aborted) return stoppedOutcome();
      io.activity(`round ${round}/${rounds} · ${member.aiName} is working`);
      turnCount.set(member.name, (turnCount.get(member.name) ?? 0) + 1);
      const turn = await runTeamTurn(io, { character: member, prompt: memberPrompt({ teamName: team.displayName, task, turns, character: member }) });
      turns.push(turn);
      thisRound.push(turn);
      if (io.signal.aborted) return stoppedOutcome();
      await context.onTurnEnd?.(checkpointOf(round - 1, turns, undefined, thisRound.length));
    }
    if (thisRound.every((turn) => turn.status.status === 'COMPLETED')) {
      return { status: 'completed', summary: `Every member reported COMPLETED in round ${round}.` };
    }
    await context.onRoundEnd?.(checkpointOf(round, turns));
  }
  const last = turns.at(-1);
  return last?.status.status === 'FAILED'
    ? { status: 'failed', summary: `The last turn failed: ${last.status.summary}` }
    : { status: 'incomplete', summary: `${rounds} rounds used.` };
}
