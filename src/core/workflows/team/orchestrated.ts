/**
 * Orchestrated mode: a supervisor reads the progress and picks the next worker with `route_next`
 * (or a `NEXT:` line), or ends the run. A worker speaks at most once per round; an unusable
 * decision falls back to the next unseen worker, and the thread says so.
 */
import type { Character } from '../../data/types.js';
import { checkpointOf, restoredTurns, turnCounts, turnsOfCutRound } from './team-checkpoint.js';
import { memberPrompt, runTeamTurn, type TeamTurn } from './team-turn.js';
import { stoppedOutcome, type TeamOutcome, type TeamRunContext } from './team-types.js';

/** The orchestrator: the team's, else its first supervisor, else its first member. */
export function orchestratorOf(context: Pick<TeamRunContext, 'team' | 'members'>): Character {
  const named = context.members.find((member) => member.name === context.team.orchestrator);
  return named ?? context.members.find((member) => member.roles.includes('supervisor')) ?? context.members[0]!;
}

function unusableReason(
  agent: string,
  workers: Character[],
  seen: Set<string>,
  turnsOf: (name: string) => number,
  maxPerMember: number | undefined,
): { worker?: Character; reason?: string } {
  const wanted = agent.toLowerCase();
  const worker = workers.find((candidate) => candidate.name.toLowerCase() === wanted || candidate.aiName.toLowerCase() === wanted);
  if (!worker) return { reason: `"${agent}" is not a worker of this team` };
  if (seen.has(worker.name)) return { reason: `${worker.aiName} already spoke this round` };
  if (maxPerMember !== undefined && turnsOf(worker.name) >= maxPerMember) return { reason: `${worker.aiName} has had ${maxPerMember} turns` };
  return { worker };
}

export async function runOrchestrated(context: TeamRunContext): Promise<TeamOutcome> {
  const { io, team, task } = context;
  const orchestrator = orchestratorOf(context);
  const workers = context.members.filter((member) => member !== orchestrator);
  const rounds = team.rounds ?? context.maxRounds;
  // Only workers' turns are kept: the orchestrator's decisions are not progress.
  const turns: TeamTurn[] = restoredTurns(context.resumeFrom, workers);
  const turnCount = turnCounts(turns);
  const turnsOf = (name: string) => turnCount.get(name) ?? 0;
  const available = (seen: Set<string>) =>
    workers.filter((worker) => !seen.has(worker.name) && (team.maxRoundsPerMember === undefined || turnsOf(worker.name) < team.maxRoundsPerMember));

  for (let round = (context.resumeFrom?.roundsDone ?? 0) + 1; round <= rounds; round++) {
    // Resume within a round: the workers who reported in it before the restart are not asked again.
    const seen = new Set<string>(turnsOfCutRound(context.resumeFrom, round, turns).map((turn) => turn.outcome.character.name));
    await io.announce(`— Round ${round} of ${rounds} —`);
    while (available(seen).length > 0) {
      if (io.signal.aborted) return stoppedOutcome();
      const candidates = available(seen);
      io.activity(`round ${round}/${rounds} · ${orchestrator.aiName} is choosing who works next`);
      const decisionTurn = await runTeamTurn(io, {
        character: orchestrator,
        expect: 'route',
        loadedTools: ['route_next'],
        prompt: memberPrompt({
          teamName: team.displayName,
          task,
          turns,
          character: orchestrator,
          extra: `You coordinate. Workers free this round: ${candidates.map((worker) => `@${worker.name}`).join(', ')}. Call route_next with one of them and your reason, or route_next END when the task is done. Without the tool, write "NEXT: @name — reason" or "NEXT: END".`,
        }),
      });
      if (io.signal.aborted) return stoppedOutcome();
      const route = decisionTurn.route;
      if (route?.agent === 'END') {
        const last = turns.at(-1);
        return last?.status.status === 'FAILED'
          ? { status: 'failed', summary: `${orchestrator.aiName} ended the run after a failure: ${route.reason}` }
          : { status: 'completed', summary: `${orchestrator.aiName} ended the run: ${route.reason}` };
      }
      let worker: Character;
      if (route) {
        const check = unusableReason(route.agent, workers, seen, turnsOf, team.maxRoundsPerMember);
        if (check.worker) worker = check.worker;
        else {
          worker = candidates[0]!;
          await io.announce(`↪ ${orchestrator.aiName}'s choice was not usable (${check.reason}) — falling back to the next worker: ${worker.aiName}.`);
        }
      } else {
        worker = candidates[0]!;
        await io.announce(`↪ ${orchestrator.aiName} named no next worker — falling back to the next worker: ${worker.aiName}.`);
      }
      seen.add(worker.name);
      turnCount.set(worker.name, turnsOf(worker.name) + 1);
      io.activity(`round ${round}/${rounds} · ${worker.aiName} is working`);
      const extra = route?.reason ? `${orchestrator.aiName} hands you the turn: ${route.reason}` : undefined;
      turns.push(
        await runTeamTurn(io, {
          character: worker,
          prompt: memberPrompt({ teamName: team.displayName, task, turns, character: worker, ...(extra ? { extra } : {}) }),
        }),
      );
      if (io.signal.aborted) return stoppedOutcome();
      await context.onTurnEnd?.(checkpointOf(round - 1, turns, undefined, seen.size));
    }
    await context.onRoundEnd?.(checkpointOf(round, turns));
  }
  return { status: 'incomplete', summary: `${rounds} rounds used without ${orchestrator.aiName} ending the run.` };
}
