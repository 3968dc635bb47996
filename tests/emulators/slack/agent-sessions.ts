/**
 * Slack's agent sessions: a thread's session shows its status, a title and, while `processing`,
 * a native Stop button.
 * - agents.sessions.setStatus (https://docs.slack.dev/reference/methods/agents.sessions.setStatus):
 *   `status` (`active`, `processing`, `suspended`, `closed`), `channel_id`, `thread_ts` (a
 *   thread-based session), `title` (max 200 characters; used only when the session is created).
 *   While the app does not subscribe to `agent_session_stopped`, it answers `ok` with the warning
 *   `missing_agent_session_stopped_event_subscription` (the person sees no Stop).
 * - agents.sessions.rename: `channel_id`, `thread_ts`, `title` (1–200 characters).
 * - chat.stopStream's `session_status` sets the stream's thread session (recorded here too).
 * - the event `agent_session_stopped` (https://docs.slack.dev/reference/events/agent_session_stopped):
 *   `channel`, `thread_ts`, `user`, `streaming_message_ts` (the app's streams in progress), `event_ts`.
 * Both methods are Tier 3 and need `chat:write`. A workspace without sessions answers `refusal`.
 */
import { stringField, type RequestFields } from './http-body.js';
import type { MessageStore } from './message-store.js';

export const SESSION_STATUSES = ['active', 'processing', 'suspended', 'closed'] as const;
export const SESSION_TITLE_MAX = 200;
export const MISSING_STOP_SUBSCRIPTION = 'missing_agent_session_stopped_event_subscription';

export interface AgentSession {
  channel: string;
  thread_ts: string;
  title?: string;
  /** Every status in order, with what set it. */
  statuses: { status: string; by: 'setStatus' | 'chat.stopStream' }[];
}

export interface AgentSessionsOptions {
  /** The app subscribes to agent_session_stopped (default true); false: setStatus warns. */
  subscribed: boolean;
  /** The workspace refuses the session methods with this error (e.g. `not_allowed`, `unknown_method`); undefined: offered. */
  refusal?: string;
}

export interface AgentSessions {
  readonly sessions: Map<string, AgentSession>;
  readonly options: AgentSessionsOptions;
  handlers: Record<string, (fields: RequestFields) => Record<string, unknown>>;
  /** chat.stopStream with `session_status` on a stream of `thread_ts`. */
  streamStopped(channel: string, threadTs: string | undefined, status: unknown): void;
  /** The event a person's click on the native Stop sends: the thread's open streams listed. */
  stopEvent(input: { channel: string; threadTs: string; userId: string }): Record<string, unknown>;
}

const fail = (error: string) => ({ ok: false, error });
const keyOf = (channel: string, threadTs: string) => `${channel}/${threadTs}`;

export function createAgentSessions(store: MessageStore, options: Partial<AgentSessionsOptions> = {}): AgentSessions {
  const sessions = new Map<string, AgentSession>();
  const settings: AgentSessionsOptions = { subscribed: options.subscribed ?? true, refusal: options.refusal };
  const target = (fields: RequestFields) => {
    const channel = stringField(fields, 'channel_id');
    const threadTs = stringField(fields, 'thread_ts');
    if (!channel || !threadTs) return fail('invalid_arguments');
    if (store.find(channel, threadTs) === undefined) return fail('thread_not_found');
    return { channel, threadTs };
  };
  const badTitle = (title: unknown, required: boolean) =>
    title === undefined ? required : typeof title !== 'string' || title.trim().length === 0 || title.length > SESSION_TITLE_MAX;
  return {
    sessions,
    options: settings,
    handlers: {
      'agents.sessions.setStatus': (fields) => {
        if (settings.refusal) return fail(settings.refusal);
        if (!(SESSION_STATUSES as readonly unknown[]).includes(fields.status)) return fail('invalid_status');
        if (badTitle(fields.title, false)) return fail('invalid_title');
        const where = target(fields);
        if ('error' in where) return where;
        const key = keyOf(where.channel, where.threadTs);
        const session = sessions.get(key) ?? { channel: where.channel, thread_ts: where.threadTs, title: fields.title as string | undefined, statuses: [] };
        sessions.set(key, session);
        session.statuses.push({ status: String(fields.status), by: 'setStatus' });
        return { ok: true, status: fields.status, title: session.title, ...(settings.subscribed ? {} : { warning: MISSING_STOP_SUBSCRIPTION }) };
      },
      'agents.sessions.rename': (fields) => {
        if (settings.refusal) return fail(settings.refusal);
        if (badTitle(fields.title, true)) return fail('invalid_title');
        const where = target(fields);
        if ('error' in where) return where;
        const session = sessions.get(keyOf(where.channel, where.threadTs));
        if (!session) return fail('session_not_found');
        session.title = fields.title as string;
        return { ok: true, title: session.title };
      },
    },
    streamStopped(channel, threadTs, status) {
      if (typeof status !== 'string' || !threadTs) return;
      const session = sessions.get(keyOf(channel, threadTs));
      if (session) session.statuses.push({ status, by: 'chat.stopStream' });
    },
    stopEvent({ channel, threadTs, userId }) {
      const streaming = store
        .thread(channel, threadTs)
        .filter((message) => message.stream === 'open')
        .map((message) => message.ts);
      return { type: 'agent_session_stopped', channel, thread_ts: threadTs, user: userId, streaming_message_ts: streaming, event_ts: store.nextTs() };
    },
  };
}
