/**
 * Slack's streaming methods for AI replies: chat.startStream posts a message in a thread with its
 * first markdown, chat.appendStream adds to it, chat.stopStream ends it with optional final
 * markdown and blocks (buttons shown after the text). In channels, startStream needs
 * `recipient_user_id` and `recipient_team_id`. A test can make the workspace refuse them
 * (`not_allowed`, `unknown_method`, `missing_scope`) to exercise a bot's fallback.
 * https://docs.slack.dev/reference/methods/chat.startStream ·
 * https://docs.slack.dev/reference/methods/chat.appendStream ·
 * https://docs.slack.dev/reference/methods/chat.stopStream
 */
import type { MessageStore, StoredMessage } from './message-store.js';
import type { WorkspaceIdentity } from './payloads.js';
import { stringField, type RequestFields } from './http-body.js';
import { chunksOf, textOf, type Chunk } from './stream-chunks.js';

/** How the workspace answers the streaming methods: offered, or refused with one of Slack's errors. */
export type StreamingRefusal = 'not_allowed' | 'unknown_method' | 'missing_scope';

/** Slack's limit on `markdown_text` in one call. */
export const SLACK_STREAM_MARKDOWN_LIMIT = 12_000;

type Body = Record<string, unknown>;
const fail = (error: string, extra: Body = {}): Body => ({ ok: false, error, ...extra });

export interface StreamingContext {
  store: MessageStore;
  identity: WorkspaceIdentity;
  /** The fields username/icon_emoji/icon_url a call asked for (checked against chat:write.customize by the caller). */
  customization: (fields: RequestFields) => Record<string, string>;
  missingCustomizeScope: (fields: RequestFields) => Body | undefined;
  messageJson: (message: StoredMessage) => Body;
  /** Task and plan chunks are refused with this error (a workspace without them); undefined: taken. */
  taskChunksRefusal?: () => string | undefined;
  /** `session_status` on chat.stopStream: the stream's thread session takes it (agent-sessions.ts). */
  sessionStatus?: (channel: string, threadTs: string | undefined, status: unknown) => void;
}

export const STREAMING_METHODS = ['chat.startStream', 'chat.appendStream', 'chat.stopStream'] as const;

/** The refusal for a streaming call, or undefined when the workspace offers streaming. */
export function streamingRefusal(refusal: StreamingRefusal | undefined, scopes: readonly string[]): Body | undefined {
  if (refusal === undefined) return undefined;
  if (refusal === 'missing_scope') return fail('missing_scope', { needed: 'assistant:write', provided: scopes.join(',') });
  return fail(refusal);
}

function markdownOf(
  fields: RequestFields,
  refusal: string | undefined,
  start = false,
): { ok: true; text: string; chunks: Chunk[] } | { ok: false; body: Body } {
  const parsed = chunksOf(fields, { start, refusal });
  if (!parsed.ok) return { ok: false, body: parsed as unknown as Body };
  const text = textOf(parsed.chunks);
  if (text.length > SLACK_STREAM_MARKDOWN_LIMIT) return { ok: false, body: fail('msg_too_long') };
  return { ok: true, text, chunks: parsed.chunks };
}

function openStream(store: MessageStore, fields: RequestFields): StoredMessage | Body {
  const channel = stringField(fields, 'channel') ?? '';
  const ts = stringField(fields, 'ts') ?? '';
  const message = store.find(channel, ts);
  if (!message) return fail('message_not_found');
  if (message.stream !== 'open') return fail('message_not_in_streaming_state');
  return message;
}

const isMessage = (value: StoredMessage | Body): value is StoredMessage => typeof (value as StoredMessage).ts === 'string' && 'history' in value;

/** The three handlers, keyed by method name. */
export function createStreamingHandlers(context: StreamingContext): Record<(typeof STREAMING_METHODS)[number], (fields: RequestFields) => Body> {
  const { store, identity } = context;
  return {
    'chat.startStream': (fields) => {
      const channel = stringField(fields, 'channel');
      const threadTs = stringField(fields, 'thread_ts');
      if (!channel) return fail('channel_not_found');
      if (!threadTs) return fail('invalid_arguments', { detail: 'thread_ts is required' });
      // Outside a DM the stream is addressed to one user of one team.
      if (!channel.startsWith('D') && (!stringField(fields, 'recipient_user_id') || !stringField(fields, 'recipient_team_id'))) {
        return fail('invalid_arguments', { detail: 'recipient_user_id and recipient_team_id are required in channels' });
      }
      const scopeError = context.missingCustomizeScope(fields);
      if (scopeError) return scopeError;
      const markdown = markdownOf(fields, context.taskChunksRefusal?.(), true);
      if (!markdown.ok) return markdown.body;
      if (markdown.chunks.length === 0) return fail('invalid_arguments', { detail: 'markdown_text or chunks is required' });
      const stored = store.add({
        channel,
        text: markdown.text,
        thread_ts: threadTs,
        ...context.customization(fields),
        user: identity.botUserId,
        bot_id: identity.botId,
        stream: 'open',
        appends: 0,
        chunks: markdown.chunks,
        taskDisplayMode: fields.task_display_mode === 'plan' ? 'plan' : 'timeline',
      });
      return { ok: true, channel, ts: stored.ts };
    },
    'chat.appendStream': (fields) => {
      const message = openStream(store, fields);
      if (!isMessage(message)) return message;
      const markdown = markdownOf(fields, context.taskChunksRefusal?.());
      if (!markdown.ok) return markdown.body;
      if (markdown.chunks.length === 0) return fail('invalid_arguments', { detail: 'markdown_text or chunks is required' });
      message.chunks = [...(message.chunks ?? []), ...markdown.chunks];
      message.text += markdown.text;
      message.history.push(message.text);
      message.appends = (message.appends ?? 0) + 1;
      return { ok: true, channel: message.channel, ts: message.ts };
    },
    'chat.stopStream': (fields) => {
      const message = openStream(store, fields);
      if (!isMessage(message)) return message;
      const markdown = markdownOf(fields, context.taskChunksRefusal?.());
      if (!markdown.ok) return markdown.body;
      message.chunks = [...(message.chunks ?? []), ...markdown.chunks];
      if (markdown.text.length > 0) {
        message.text += markdown.text;
        message.history.push(message.text);
      }
      if (Array.isArray(fields.blocks) && fields.blocks.length > 0) message.blocks = fields.blocks;
      message.stream = 'stopped';
      context.sessionStatus?.(message.channel, message.thread_ts, fields.session_status);
      return { ok: true, channel: message.channel, ts: message.ts, message: context.messageJson(message) };
    },
  };
}
