/** `/team`: lists the teams, or runs one on a task with its strategy, in the root message's thread. */
import { runAcceptanceChecks } from '../../core/workflows/team/acceptance.js';
import { orchestratorOf } from '../../core/workflows/team/orchestrated.js';
import { runTeam } from '../../core/workflows/team/run-team.js';
import { DEFAULT_TEAM_MAX_ROUNDS, type TeamOutcomeStatus } from '../../core/workflows/team/team-types.js';
import type { RunStatus } from '../../core/store/run-types.js';
import type { ChatSurface } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowServices } from '../workflow-handlers.js';
import type { SlashCommandEvent } from '../inbound-event.js';
import { parseTeamCommand } from './parse-team.js';
import { workspaceFingerprint } from '../../core/workflows/team/workspace-fingerprint.js';
import { runSafely } from './run-safely.js';
import { openWorkflowSession, type WorkflowSessionOptions } from './workflow-session.js';
import { maskedCheckpoint, saveTeamState, type TeamRunState } from './team/team-run-state.js';
import type { TeamCheckpoint } from '../../core/workflows/team/team-checkpoint.js';

export interface TeamCommandOptions {
  /** `teamMaxRounds`: rounds for teams that set none. */
  teamMaxRounds?: number;
  cardIntervalMs?: number;
}

const HEADLINES: Record<TeamOutcomeStatus, [RunStatus, string]> = {
  completed: ['completed', '✅ Team run completed.'],
  incomplete: ['completed', '↻ Team run ended without a final COMPLETED.'],
  failed: ['failed', '✖ Team run failed.'],
  stopped: ['stopped', '⏹ Team run stopped.'],
};

type ParsedTeam = Extract<ReturnType<typeof parseTeamCommand>, { ok: true }>;

/** What one /team run (new or resumed) is given. */
export interface TeamDrive {
  deps: CommandDependencies;
  services: WorkflowServices;
  surface: ChatSurface;
  event: WorkflowSessionOptions['event'] & Pick<SlashCommandEvent, 'text' | 'schedule'>;
  parsed: ParsedTeam;
  options: TeamCommandOptions;
  /** Resume: the reopened run and what it stored. */
  resume?: { run: NonNullable<WorkflowSessionOptions['resume']>; state: TeamRunState };
}

export async function handleTeamCommand(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: SlashCommandEvent,
  surface: ChatSurface,
  options: TeamCommandOptions = {},
): Promise<void> {
  const parsed = parseTeamCommand(deps.roster, event.text);
  if (!parsed.ok) return event.reply(parsed.message);
  return driveTeam({ deps, services, surface, event, parsed, options });
}

/** Opens (or, on Resume, reopens) the session and runs the team to its end, storing each completed round. */
export async function driveTeam(drive: TeamDrive): Promise<void> {
  const { deps, services, surface, event, options, resume } = drive;
  const { team, members, task } = drive.parsed;
  const lead = team.mode === 'orchestrated' ? ` · led by ${orchestratorOf({ team, members }).aiName}` : '';
  const session = await openWorkflowSession({
    deps,
    services,
    surface,
    event,
    kind: 'team',
    title: `Team ${team.displayName}: ${task.slice(0, 70)}`,
    rootText: deps.maskSecrets(
      `${event.schedule ? `⏰ Scheduled (${event.schedule}) · ` : ''}👥 Team **${team.displayName}** (${team.mode}${lead}) by ${surface.mention(event.user)}: ${task}\nMembers: ${members.map((member) => member.aiName).join(', ')}`,
    ),
    members,
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
    ...(resume ? { resume: resume.run } : {}),
  });
  if (!session) return;
  const commandText = resume?.state.commandText ?? deps.maskSecrets(event.text);
  const checkpoint = resume?.state.checkpoint;
  await runSafely(session, deps, async () => {
    if (resume) await session.io.announce(resumeNote(team.mode, checkpoint));
    else {
      await deps.runs.appendEvent(session.runId, { type: 'message', agent: event.userName ?? event.user, text: deps.maskSecrets(task) });
      await saveTeamState(deps.store, session.runId, { commandText });
    }
    const outcome = await runTeam({
      io: session.io,
      team,
      members,
      task,
      maxRounds: options.teamMaxRounds ?? DEFAULT_TEAM_MAX_ROUNDS,
      checkAcceptance: (checks) =>
        runAcceptanceChecks(checks, {
          workspace: deps.workspace,
          childEnv: deps.childEnv,
          sandbox: deps.sandbox,
          permissions: session.permissions,
          maskSecrets: deps.maskSecrets,
          runId: session.runId,
          requesterId: event.user,
          signal: session.abort.signal,
        }),
      workspaceFingerprint: () => workspaceFingerprint(deps.workspace.root, session.abort.signal),
      ...(checkpoint ? { resumeFrom: checkpoint } : {}),
      onRoundEnd: (done) => saveTeamState(deps.store, session.runId, { commandText, checkpoint: maskedCheckpoint(done, deps.maskSecrets) }),
      onTurnEnd: (done) => saveTeamState(deps.store, session.runId, { commandText, checkpoint: maskedCheckpoint(done, deps.maskSecrets) }),
    });
    const [status, headline] = HEADLINES[outcome.status];
    return { status, headline, summary: outcome.summary };
  });
}

function resumeNote(mode: string, checkpoint: TeamCheckpoint | undefined): string {
  const unit = mode === 'pipeline' ? 'station' : 'round';
  const roundsDone = checkpoint?.roundsDone ?? 0;
  const taken = checkpoint?.inRound ?? 0;
  const within = taken > 0 ? ` ${taken} turn${taken === 1 ? '' : 's'} of ${unit} ${roundsDone + 1} had reported and are not asked again either.` : '';
  if (roundsDone === 0) return `▶ Resuming: no ${unit} had been completed, so the run starts again from ${unit} 1.${within}`;
  return `▶ Resuming after ${roundsDone} completed ${unit}${roundsDone === 1 ? '' : 's'}: their members are not asked again; the run goes on with ${unit} ${roundsDone + 1}.${within}`;
}
