/**
 * Resume of an interrupted /goal (issue 25): the requester or an admin presses Resume in the run's
 * thread after a restart; the run is reopened (once, whoever clicks twice) and continues from the
 * first unfinished step with the stored plan and outcomes — no step that finished runs again. A
 * step cut off half-way runs again from its start, so an approval pending at the crash is asked again.
 */
import type { ChatSurface } from '../../chat-surface.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import type { ButtonActionEvent } from '../../inbound-event.js';
import type { WorkflowServices } from '../../workflow-handlers.js';
import { depsInChannel } from '../../channels/channel-deps.js';
import { driveGoal, type GoalCommandOptions } from './goal-command.js';
import { loadGoalState } from './goal-run-state.js';

export async function handleGoalResume(
  deps: CommandDependencies,
  services: WorkflowServices,
  event: ButtonActionEvent,
  surface: ChatSurface,
  options: GoalCommandOptions,
): Promise<void> {
  const run = await deps.runs.get(event.value);
  const threadId = run?.where.threadId;
  if (run?.kind !== 'goal' || !threadId) return event.replyEphemeral('This run cannot be resumed.');
  if (run.startedBy !== event.user && !deps.settings.admins.includes(event.user))
    return event.replyEphemeral('Only the person who started this goal or an admin can resume it.');
  const state = await loadGoalState(deps.store, run.id);
  if (!state) return event.replyEphemeral('This goal stored nothing to continue from: start it again with /goal.');
  // Only an interrupted run reopens, once: a second click (here or on another replica) finds it running.
  const reopened = run.status === 'interrupted' ? await deps.runs.reopen(run.id) : undefined;
  if (!reopened)
    return event.replyEphemeral(run.status === 'running' ? 'This goal is already running again.' : `This goal is ${run.status}: nothing to resume.`);
  await event.clearButtons?.().catch((error: unknown) => deps.logger.warn('could not remove the Resume button', { runId: run.id, error }));
  await surface.post({ thread: threadId, text: `▶ Resumed by ${surface.mention(event.user)}.` });
  const channelDeps = await depsInChannel(deps, run.where.channelId, surface);
  await driveGoal({
    deps: channelDeps,
    services,
    surface,
    // The run stays the requester's: its approvals are asked of them (or an admin), as before the restart.
    event: { user: run.startedBy, channel: run.where.channelId, reply: (text) => event.replyEphemeral(text) },
    objective: state.objective,
    ...(state.budget ? { budget: state.budget } : {}),
    confirm: false,
    options,
    resume: { run: { ...reopened, where: { ...reopened.where, threadId } }, state },
  });
}
