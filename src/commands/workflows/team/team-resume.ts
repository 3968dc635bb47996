/**
 * Resume of an interrupted /team (issue 25): the requester or an admin presses Resume in the run's
 * thread after a restart; the run is reopened (once, whoever clicks twice) and continues after its
 * last completed round (pipeline: station) with the turns stored so far — no member of a completed
 * round is asked again. A round cut off half-way runs again from its start, so an approval pending
 * at the crash is asked again.
 */
import type { ChatSurface } from '../../chat-surface.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import type { ButtonActionEvent } from '../../inbound-event.js';
import type { WorkflowServices } from '../../workflow-handlers.js';
import { depsInChannel } from '../../channels/channel-deps.js';
import { parseTeamCommand } from '../parse-team.js';
import { driveTeam, type TeamCommandOptions } from '../team-command.js';
import { loadTeamState } from './team-run-state.js';

export async function handleTeamResume(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: ButtonActionEvent,
  surface: ChatSurface,
  options: TeamCommandOptions,
): Promise<void> {
  const run = await deps.runs.get(event.value);
  const threadId = run?.where.threadId;
  if (run?.kind !== 'team' || !threadId) return event.replyEphemeral('This run cannot be resumed.');
  if (run.startedBy !== event.user && !deps.settings.admins.includes(event.user))
    return event.replyEphemeral('Only the person who started this team run or an admin can resume it.');
  const state = await loadTeamState(deps.store, run.id);
  if (!state) return event.replyEphemeral('This team run stored nothing to continue from: start it again with /team.');
  const channelDeps = await depsInChannel(deps, run.where.channelId, surface);
  const parsed = parseTeamCommand(channelDeps.roster, state.commandText);
  if (!parsed.ok) return event.replyEphemeral(`This team run cannot continue: ${parsed.message}`);
  // Only an interrupted run reopens, once: a second click (here or on another replica) finds it running.
  const reopened = run.status === 'interrupted' ? await deps.runs.reopen(run.id) : undefined;
  if (!reopened)
    return event.replyEphemeral(run.status === 'running' ? 'This team run is already running again.' : `This team run is ${run.status}: nothing to resume.`);
  await event.clearButtons?.().catch((error: unknown) => deps.logger.warn('could not remove the Resume button', { runId: run.id, error }));
  await surface.post({ thread: threadId, text: `▶ Resumed by ${surface.mention(event.user)}.` });
  await driveTeam({
    deps: channelDeps,
    services,
    surface,
    // The run stays the requester's: its approvals are asked of them (or an admin), as before the restart.
    event: { user: run.startedBy, channel: run.where.channelId, text: state.commandText, reply: (text) => event.replyEphemeral(text) },
    parsed,
    options,
    resume: { run: { ...reopened, where: { ...reopened.where, threadId } }, state },
  });
}
