/**
 * Slack's agent sessions (issue 37): while a reply streams, its thread's session is `processing`
 * (`agents.sessions.setStatus`, titled from the request), and Slack shows its own Stop button; the
 * stream's `chat.stopStream` sets it back to `active` (`session_status`). A click on that Stop
 * comes as `agent_session_stopped`, handed to the command layer as a Stop of whatever runs in the
 * thread (on any replica, as the Stop button is). Where a workspace refuses sessions — an error
 * from the method, or the warning that the app does not subscribe to the event (the person would
 * see no Stop) — the reply posts the Stop companion of `stop-companion.ts` as before, and the
 * workspace is remembered (as for task cards): its later replies post the companion at once.
 * https://docs.slack.dev/reference/methods/agents.sessions.setStatus ·
 * https://docs.slack.dev/reference/events/agent_session_stopped ·
 * https://docs.slack.dev/reference/methods/chat.stopStream (session_status)
 */
import type { App } from '@slack/bolt';
import { SESSION_STOP_ACTION } from '../../commands/action-ids.js';
import type { ChatSurface } from '../../commands/chat-surface.js';
import type { InboundEvent } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { channelRef, messageRef, userRef } from './ids.js';
import { createRefusalMemory, errorCode, type SlackMessaging, type SlackReplyStreamOptions, type StreamingSupport } from './slack-messaging.js';
import { createStopCompanion, type StopCompanion } from './stop-companion.js';

/** Slack's limit on a session's title. */
export const SESSION_TITLE_MAX = 200;
/** The warning of setStatus while the app does not subscribe to agent_session_stopped: no Stop is shown. */
export const MISSING_STOP_SUBSCRIPTION = 'missing_agent_session_stopped_event_subscription';
/** Answers that say nothing about whether the workspace has sessions: this reply uses the companion, the next one tries again. */
const NOT_ABOUT_SESSIONS = new Set([
  'ratelimited',
  'rate_limited',
  'thread_not_found',
  'channel_not_found',
  'internal_error',
  'fatal_error',
  'request_timeout',
  'service_unavailable',
]);

/** Which workspaces refused agent sessions, per Slack app (its caller): remembered for the life of the process. */
const supportOf = new WeakMap<object, StreamingSupport>();
export function sessionSupport(slack: Pick<SlackMessaging, 'caller' | 'logger'>): StreamingSupport {
  let support = supportOf.get(slack.caller);
  if (!support)
    supportOf.set(
      slack.caller,
      (support = createRefusalMemory(
        slack.logger,
        "Slack's agent sessions are not available: streamed replies in this workspace post a Stop companion message",
      )),
    );
  return support;
}

/** The Stop of a streamed reply: Slack's own in the session where the workspace has sessions, else the companion. */
export interface ReplyControls extends StopCompanion {
  /** What chat.stopStream adds: the session's status after the reply. */
  stopFields(): { session_status?: string };
  /** After the reply ended without chat.stopStream (a placeholder edited in place): the session leaves `processing`. */
  finish(streamed: boolean): void;
}

const cut = (text: string): string => (text.length <= SESSION_TITLE_MAX ? text : `${text.slice(0, SESSION_TITLE_MAX - 1)}…`);

function warningsOf(response: unknown): string[] {
  const answer = response as { warning?: string; response_metadata?: { warnings?: string[] } } | undefined;
  return [...(answer?.warning ? answer.warning.split(',') : []), ...(answer?.response_metadata?.warnings ?? [])];
}

/** The Stop of one streamed reply with running buttons; undefined when it has none (or is not streamed). */
export function createReplyControls(slack: SlackMessaging, options: SlackReplyStreamOptions, key: string, streamed: boolean): ReplyControls | undefined {
  if (!streamed || !options.buttons || options.buttons.length === 0) return undefined;
  const { channel, threadTs, team } = options;
  const sessions = sessionSupport(slack);
  const buttons = options.buttons;
  const companion = () =>
    createStopCompanion({
      client: slack.client,
      caller: slack.caller,
      logger: slack.logger,
      channel,
      threadTs,
      name: options.identity?.name,
      buttons,
      key,
      onPosted: (posted) => options.onControl?.({ message: messageRef(team, channel, posted), kind: 'companion' }),
    });
  let fallback: StopCompanion | undefined = sessions.offered(team) ? undefined : companion();
  let state: 'idle' | 'processing' | 'ended' = 'idle';
  let session = false;

  const setStatus = (status: string, priority: 'ack' | 'final', title?: string) =>
    slack.caller({
      method: 'agents.sessions.setStatus',
      channel,
      priority,
      call: () =>
        slack.client.agents.sessions.setStatus({
          channel_id: channel,
          thread_ts: threadTs,
          status,
          ...(title ? { title: cut(title) } : {}),
          ...(options.recipientUser ? { initiator_user_id: options.recipientUser } : {}),
        }),
    });

  /** Sessions refused (or no Stop shown): remembered when the answer says so, and the companion carries the Stop. */
  const useCompanion = (reason: string | undefined) => {
    if (reason && !NOT_ABOUT_SESSIONS.has(reason)) sessions.refuse(team, reason);
    if (state === 'ended' || fallback) return;
    fallback = companion();
    fallback.show();
  };

  function start(): void {
    state = 'processing';
    setStatus('processing', 'ack', options.title?.trim() || undefined).then(
      (response) => {
        session = true;
        if (warningsOf(response).includes(MISSING_STOP_SUBSCRIPTION)) useCompanion(MISSING_STOP_SUBSCRIPTION);
      },
      (error: unknown) => {
        slack.logger.debug('agents.sessions.setStatus failed: this reply posts a Stop companion', { channel, error });
        useCompanion(errorCode(error));
      },
    );
  }

  return {
    show() {
      if (fallback) fallback.show();
      else if (state === 'idle') start();
    },
    get active() {
      return fallback?.active ?? false;
    },
    async remove() {
      state = 'ended';
      await fallback?.remove();
    },
    stopFields: () => (session ? { session_status: 'active' } : {}),
    finish(streamedToTheEnd) {
      if (!streamedToTheEnd && session)
        setStatus('active', 'final').catch((error: unknown) => slack.logger.warn('the agent session could not be set back to active', { channel, error }));
    },
  };
}

/** `agent_session_stopped`: a person clicked Slack's Stop on a working thread; the command layer stops what runs there. */
export function registerSessionStop(app: App, surface: ChatSurface, fire: (event: InboundEvent) => void, logger: Logger): void {
  app.event('agent_session_stopped' as never, async ({ event, body }: { event: unknown; body: unknown }) => {
    const stopped = event as { channel?: string; thread_ts?: string; user?: string; event_ts?: string; streaming_message_ts?: string[] };
    const team = (body as { team_id?: string }).team_id ?? 'T';
    if (!stopped.channel || !stopped.thread_ts || !stopped.user) {
      logger.warn('an agent_session_stopped event without its channel, thread or user was ignored');
      return;
    }
    const { channel, user } = stopped;
    const thread = messageRef(team, channel, stopped.thread_ts);
    fire({
      type: 'button-action',
      id: (body as { event_id?: string }).event_id ?? `${channel}:${stopped.thread_ts}:${stopped.event_ts ?? ''}`,
      platform: 'slack',
      channel: channelRef(team, channel),
      user: userRef(user),
      fromBot: false,
      actionId: SESSION_STOP_ACTION,
      value: '',
      message: stopped.streaming_message_ts?.[0] ? messageRef(team, channel, stopped.streaming_message_ts[0]) : thread,
      thread,
      replyEphemeral: (text) => surface.postEphemeral({ channel: channelRef(team, channel), thread, user: userRef(user), text }),
    });
  });
}
