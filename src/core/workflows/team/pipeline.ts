/**
 * Pipeline mode: stations in order, each refining the previous station's output. Acceptance checks
 * (per station, or the team's for the last station) judge every attempt, with bounded attempts and
 * the failures fed back; a stall — the check failed again and the workspace did not change since the
 * last failed attempt — ends the retries (a repeated sentence alone is not a stall: the member may
 * have fixed the files and said the same thing). Without acceptance every station still
 * runs: a COMPLETED status never skips the stations after it (design §6.5).
 */
import type { Character, TeamStation } from '../../data/types.js';
import { checkpointOf, restoredTurns } from './team-checkpoint.js';
import { runTeamTurn, type TeamTurn } from './team-turn.js';
import { DEFAULT_STATION_ATTEMPTS, stoppedOutcome, type TeamOutcome, type TeamRunContext } from './team-types.js';

function stationsOf(context: TeamRunContext): { station: TeamStation; character: Character }[] {
  const stations = context.team.stations ?? context.team.members.map((member) => ({ member }));
  return stations.map((station) => {
    const character = context.members.find((member) => member.name === station.member);
    if (!character) throw new Error(`Pipeline station "${station.member}" is not a member of ${context.team.name}.`);
    return { station, character };
  });
}

function stationPrompt(options: {
  context: TeamRunContext;
  index: number;
  total: number;
  station: TeamStation;
  character: Character;
  previous?: TeamTurn;
  feedback?: string[];
  attempt: number;
}): string {
  const { context, station, previous, feedback } = options;
  return [
    `Team run "${context.team.displayName}", pipeline station ${options.index + 1} of ${options.total}. The task: ${context.task}`,
    ...(station.task ? [`Your station's job: ${station.task}`] : []),
    '',
    previous
      ? `The previous station (${previous.outcome.character.aiName}) handed over:\n${previous.outcome.text.trim() || previous.status.summary}`
      : 'You are the first station.',
    ...(feedback && feedback.length > 0 ? ['', `Attempt ${options.attempt}: the last attempt was not accepted:`, ...feedback] : []),
    '',
    `Your turn, ${options.character.aiName}. Refine the work, then call report_status (or end with "STATUS: COMPLETED — summary").`,
  ].join('\n');
}

export async function runPipeline(context: TeamRunContext): Promise<TeamOutcome> {
  const { io, team } = context;
  const stations = stationsOf(context);
  // One accepted turn per finished station; Resume starts at the first station without one.
  const handedOver: TeamTurn[] = restoredTurns(context.resumeFrom, context.members);
  let previous: TeamTurn | undefined = handedOver.at(-1);
  for (const [index, { station, character }] of stations.entries()) {
    if (index < (context.resumeFrom?.roundsDone ?? 0)) continue;
    const checks = station.acceptance ?? (index === stations.length - 1 ? team.acceptance : undefined);
    const maxAttempts = Math.max(1, station.maxAttempts ?? DEFAULT_STATION_ATTEMPTS);
    await io.announce(`— Station ${index + 1} of ${stations.length}: ${character.aiName} —`);
    let accepted: TeamTurn | undefined;
    let feedback: string[] = [];
    let failedFingerprint: string | undefined;
    for (let attempt = 1; attempt <= maxAttempts && !accepted; attempt++) {
      if (io.signal.aborted) return stoppedOutcome();
      io.activity(`station ${index + 1}/${stations.length} · ${character.aiName} · attempt ${attempt}/${maxAttempts}`);
      const turn = await runTeamTurn(io, {
        character,
        prompt: stationPrompt({ context, index, total: stations.length, station, character, previous, feedback, attempt }),
      });
      if (io.signal.aborted) return stoppedOutcome();
      if (checks && checks.length > 0) {
        io.activity(`station ${index + 1}/${stations.length} · acceptance checks`);
        const result = await context.checkAcceptance(checks);
        await io.announce(`🧪 Acceptance (station ${index + 1}, attempt ${attempt}): ${result.passed ? 'passed' : 'failed'}\n${result.report.join('\n')}`);
        if (result.passed) {
          accepted = turn;
        } else {
          feedback = result.report;
          const fingerprint = await context.workspaceFingerprint();
          if (failedFingerprint !== undefined && fingerprint === failedFingerprint) {
            await io.announce(`⚠️ Stall: ${character.aiName}'s attempt changed nothing in the workspace and the check failed again — no more retries.`);
            return { status: 'failed', summary: `Station ${index + 1} (${character.aiName}) stalled.` };
          }
          failedFingerprint = fingerprint;
        }
      } else if (turn.status.status === 'FAILED' && attempt < maxAttempts) {
        feedback = [`You reported FAILED: ${turn.status.summary}`];
      } else {
        accepted = turn;
      }
    }
    if (!accepted) return { status: 'failed', summary: `Station ${index + 1} (${character.aiName}) was not accepted after ${maxAttempts} attempts.` };
    if (accepted.status.status === 'FAILED')
      return { status: 'failed', summary: `Station ${index + 1} (${character.aiName}) failed: ${accepted.status.summary}` };
    previous = accepted;
    handedOver.push(accepted);
    await context.onRoundEnd?.(checkpointOf(index + 1, handedOver));
  }
  return { status: 'completed', summary: `All ${stations.length} stations done.` };
}
