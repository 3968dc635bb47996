/**
 * The Resume button posted in an interrupted run's thread after a restart (issue 25): the requester
 * or an admin continues it. A /goal continues from its first unfinished step and a /team after its
 * last completed round (the workflows' own handler); a conversation turn runs again with the
 * thread's history, as if its message came again.
 */
import type { ChatSurface, Platform } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import type { Conversations } from '../turns/conversations.js';
import type { ButtonActionEvent } from '../inbound-event.js';
import type { WorkflowHandlers } from '../workflow-handlers.js';

/** Run kinds a Resume button is offered for. */
export const RESUMABLE_KINDS: readonly string[] = ['goal', 'team', 'ask'];

/** How long a resumed turn's claim is kept: a second click within it does nothing. */
const RESUME_CLAIM_MS = 7 * 24 * 60 * 60_000;

export async function handleResumeButton(
  event: ButtonActionEvent,
  surface: ChatSurface,
  context: { deps: CommandDependencies; conversations: Conversations; workflows: WorkflowHandlers },
): Promise<void> {
  const { deps } = context;
  const run = await deps.runs.get(event.value);
  if ((run?.kind === 'goal' || run?.kind === 'team') && context.workflows.resume) return context.workflows.resume(event, surface);
  const threadId = run?.where.threadId;
  if (run?.kind !== 'ask' || !threadId) return event.replyEphemeral('This run cannot be resumed: ask again.');
  if (run.startedBy !== event.user && !deps.settings.admins.includes(event.user))
    return event.replyEphemeral('Only the person who asked or an admin can resume this.');
  if (run.status !== 'interrupted') return event.replyEphemeral(`This run is ${run.status}: nothing to resume.`);
  const asked = (await deps.runs.events(run.id)).find((entry) => entry.type === 'message');
  if (asked?.type !== 'message') return event.replyEphemeral('This run stored no message to answer again: ask again.');
  if (!(await (deps.coordination?.claim(`resume:${run.id}`, RESUME_CLAIM_MS) ?? Promise.resolve(true))))
    return event.replyEphemeral('This was already resumed.');
  await deps.runs.appendEvent(run.id, { type: 'note', text: `resumed by ${event.user}: the message is answered again in a new turn` });
  await event.clearButtons?.().catch((error: unknown) => deps.logger.warn('could not remove the Resume button', { runId: run.id, error }));
  await surface.post({ thread: threadId, text: `▶ Resumed by ${surface.mention(event.user)}: answering the interrupted message again.` });
  // The thread's history is what the session stored before the interrupted turn; the turn runs again on top of it.
  await context.conversations.handleMessage(
    {
      type: 'mention',
      id: `resume:${run.id}`,
      platform: run.where.platform as Platform,
      channel: run.where.channelId,
      user: run.startedBy,
      fromBot: false,
      message: threadId,
      thread: threadId,
      text: asked.text,
    },
    surface,
  );
}
