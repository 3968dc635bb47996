/**
 * The Web API methods the bot uses, answered the way Slack answers them: HTTP 200 with
 * `{ok:false, error}` for errors, HTTP 429 with `Retry-After` when rate limited.
 * Method reference: https://docs.slack.dev/reference/methods
 */
import { checkMessageContent } from './message-limits.js';
import type { MessageStore, SharedFile, StoredMessage } from './message-store.js';
import type { RateLimiter } from './rate-limiter.js';
import { faultAnswer, type FaultInjector } from './faults.js';
import { newSlackId, type WorkspaceIdentity } from './payloads.js';
import { stringField, type RequestFields } from './http-body.js';
import { repliesPage } from './thread-replies.js';
import { CONVERSATION_SCOPES, type Conversations } from './conversations.js';
import type { AgentSessions } from './agent-sessions.js';
import { ASSISTANT_SCOPES, type AssistantThreads } from './assistant-threads.js';
import { createStreamingHandlers, STREAMING_METHODS, streamingRefusal, type StreamingRefusal } from './streaming.js';

/** What the Web API needs from the emulator around it. */
export interface WebApiContext {
  store: MessageStore;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
  identity: WorkspaceIdentity;
  botToken: string;
  appToken: string;
  scopes: () => readonly string[];
  /** `http://127.0.0.1:PORT`, for upload URLs. */
  baseUrl: () => string;
  /** A fresh Socket Mode URL with a single-use ticket. */
  issueSocketUrl: () => string;
  /** Whether the workspace refuses chat.startStream/appendStream/stopStream, and how. */
  streamingRefusal: () => StreamingRefusal | undefined;
  /** Whether task and plan chunks are refused, and with which error. */
  taskChunksRefusal?: () => string | undefined;
  /** Channels, their privacy and members. */
  conversations: Conversations;
  /** The assistant surface: thread titles and suggested prompts. */
  assistant: AssistantThreads;
  /** Agent sessions: statuses, titles, the native Stop. */
  sessions: AgentSessions;
}

/** The answer to one call, before it is written to the wire. */
export interface ApiResult {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Set when the call was refused by the rate limiter. */
  rateLimit?: { retryAfterSeconds: number; channel?: string };
}

/** The method dispatcher plus the upload endpoint that files.getUploadURLExternal points to. */
export interface WebApi {
  call(method: string, fields: RequestFields, token: string | undefined): ApiResult;
  /** Stores the bytes of an announced upload; false when the file id is unknown. */
  receiveUpload(fileId: string, bytes: Buffer): boolean;
  readonly methods: readonly string[];
}

type Body = Record<string, unknown>;
type Handler = (fields: RequestFields) => Body;

const CUSTOMIZE_SCOPE = 'chat:write.customize';

/** The scope each method needs (the ones a TSUKA bot asks for; see platform-notes.md). */
const REQUIRED_SCOPES: Record<string, string | undefined> = {
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.delete': 'chat:write',
  'assistant.threads.setStatus': 'chat:write',
  'agents.sessions.setStatus': 'chat:write',
  'agents.sessions.rename': 'chat:write',
  'chat.startStream': 'chat:write',
  'chat.appendStream': 'chat:write',
  'chat.stopStream': 'chat:write',
  'reactions.add': 'reactions:write',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'conversations.replies': 'channels:history',
  ...CONVERSATION_SCOPES,
  ...ASSISTANT_SCOPES,
  'conversations.open': 'im:write',
  'files.info': 'files:read',
};

const fail = (error: string, extra: Body = {}): Body => ({ ok: false, error, ...extra });

/** A shared file as Slack describes it (on a message, and from files.info). */
export function sharedFileJson(file: SharedFile, identity: WorkspaceIdentity, baseUrl: string): Body {
  const url = `${baseUrl}/files-pri/${identity.teamId}-${file.id}/${encodeURIComponent(file.name)}`;
  return {
    id: file.id,
    name: file.name,
    title: file.name,
    mimetype: file.mimetype,
    filetype: file.name.split('.').pop() ?? '',
    size: file.bytes.length,
    url_private: url,
    url_private_download: `${url}?download=1`,
    is_public: false,
  };
}

/** Creates the dispatcher over the given workspace state. */
export function createWebApi(context: WebApiContext): WebApi {
  const { store, identity } = context;

  const messageJson = (message: StoredMessage, replies?: StoredMessage[]): Body => ({
    type: 'message',
    ...(message.bot_id && message.username ? { subtype: 'bot_message' } : {}),
    user: message.user,
    text: message.text,
    ts: message.ts,
    team: identity.teamId,
    ...(message.bot_id === identity.botId
      ? { bot_id: message.bot_id, app_id: identity.appId, bot_profile: { id: message.bot_id, app_id: identity.appId, name: 'TSUKA', team_id: identity.teamId } }
      : message.bot_id
        ? { subtype: 'bot_message', bot_id: message.bot_id, bot_profile: { id: message.bot_id, name: message.username ?? 'bot', team_id: identity.teamId } }
        : {}),
    ...(message.files ? { files: message.files } : {}),
    ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    ...(message.blocks ? { blocks: message.blocks } : {}),
    ...(message.username ? { username: message.username } : {}),
    ...(message.icon_emoji || message.icon_url
      ? { icons: { ...(message.icon_emoji ? { emoji: message.icon_emoji } : {}), ...(message.icon_url ? { image_64: message.icon_url } : {}) } }
      : {}),
    ...(message.reactions.length > 0 ? { reactions: message.reactions.map((name) => ({ name, users: [identity.botUserId], count: 1 })) } : {}),
    ...(replies && replies.length > 0
      ? { reply_count: replies.length, reply_users: [...new Set(replies.map((r) => r.user))], latest_reply: replies.at(-1)?.ts }
      : {}),
  });

  const customization = (fields: RequestFields) => ({
    ...(stringField(fields, 'username') ? { username: stringField(fields, 'username') } : {}),
    ...(stringField(fields, 'icon_emoji') ? { icon_emoji: stringField(fields, 'icon_emoji') } : {}),
    ...(stringField(fields, 'icon_url') ? { icon_url: stringField(fields, 'icon_url') } : {}),
  });

  const missingCustomizeScope = (fields: RequestFields): Body | undefined => {
    const wanted = Object.keys(customization(fields)).length > 0;
    if (!wanted || context.scopes().includes(CUSTOMIZE_SCOPE)) return undefined;
    return fail('missing_scope', { needed: CUSTOMIZE_SCOPE, provided: context.scopes().join(',') });
  };

  const contentError = (error: string, detail: string): Body => fail(error, { errors: [detail], response_metadata: { messages: [`[ERROR] ${detail}`] } });

  const handlers: Record<string, Handler> = {
    'auth.test': () => ({
      ok: true,
      url: `https://${identity.teamDomain}.slack.com/`,
      team: 'TSUKA Emulator',
      user: 'tsuka',
      team_id: identity.teamId,
      user_id: identity.botUserId,
      bot_id: identity.botId,
      is_enterprise_install: false,
    }),
    'apps.connections.open': () => ({ ok: true, url: context.issueSocketUrl() }),
    'chat.postMessage': (fields) => {
      const channel = stringField(fields, 'channel');
      if (!channel) return fail('channel_not_found');
      const scopeError = missingCustomizeScope(fields);
      if (scopeError) return scopeError;
      const content = checkMessageContent({ text: fields.text, blocks: fields.blocks });
      if (!content.ok) return contentError(content.error, content.detail);
      const threadTs = stringField(fields, 'thread_ts');
      const stored = store.add({
        channel,
        text: content.text,
        ...(content.blocks && content.blocks.length > 0 ? { blocks: content.blocks } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...customization(fields),
        user: identity.botUserId,
        bot_id: identity.botId,
        truncated: content.truncated,
      });
      return { ok: true, channel, ts: stored.ts, message: messageJson(stored) };
    },
    'chat.update': (fields) => {
      const channel = stringField(fields, 'channel');
      const ts = stringField(fields, 'ts');
      const existing = channel && ts ? store.find(channel, ts) : undefined;
      if (!channel || !ts || !existing) return fail('message_not_found');
      if (!existing.bot_id) return fail('cant_update_message');
      // Slack keeps the previous blocks when the field is absent; an empty array removes them.
      const blocks = fields.blocks === undefined ? existing.blocks : fields.blocks;
      const content = checkMessageContent({ text: fields.text, blocks });
      if (!content.ok) return contentError(content.error, content.detail);
      const updated = store.update(channel, ts, {
        text: content.text,
        ...(content.blocks && content.blocks.length > 0 ? { blocks: content.blocks } : {}),
        truncated: content.truncated,
      });
      return { ok: true, channel, ts, text: content.text, message: updated ? messageJson(updated) : {} };
    },
    ...createStreamingHandlers({
      store,
      identity,
      customization,
      missingCustomizeScope,
      messageJson: (message) => messageJson(message),
      taskChunksRefusal: () => context.taskChunksRefusal?.(),
      sessionStatus: (channel, threadTs, status) => context.sessions.streamStopped(channel, threadTs, status),
    }),
    'chat.postEphemeral': (fields) => {
      const channel = stringField(fields, 'channel');
      const user = stringField(fields, 'user');
      if (!channel) return fail('channel_not_found');
      if (!user) return fail('user_not_in_channel');
      const scopeError = missingCustomizeScope(fields);
      if (scopeError) return scopeError;
      const content = checkMessageContent({ text: fields.text, blocks: fields.blocks });
      if (!content.ok) return contentError(content.error, content.detail);
      const threadTs = stringField(fields, 'thread_ts');
      const messageTs = store.nextTs();
      store.ephemerals.push({
        channel,
        user,
        text: content.text,
        ...(content.blocks ? { blocks: content.blocks } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...customization(fields),
        message_ts: messageTs,
      });
      return { ok: true, message_ts: messageTs };
    },
    'chat.delete': (fields) => {
      const channel = stringField(fields, 'channel') ?? '';
      const ts = stringField(fields, 'ts') ?? '';
      const existing = store.find(channel, ts);
      if (!existing) return fail('message_not_found');
      if (!existing.bot_id) return fail('cant_delete_message');
      store.remove(channel, ts);
      return { ok: true, channel, ts };
    },
    'reactions.add': (fields) => {
      const channel = stringField(fields, 'channel') ?? '';
      const ts = stringField(fields, 'timestamp') ?? '';
      const name = stringField(fields, 'name');
      const existing = store.find(channel, ts);
      if (!existing) return fail('message_not_found');
      if (!name) return fail('invalid_name');
      if (existing.reactions.includes(name)) return fail('already_reacted');
      existing.reactions.push(name);
      store.reactions.push({ channel, ts, name });
      return { ok: true };
    },
    'assistant.threads.setStatus': (fields) => {
      const channel = stringField(fields, 'channel_id');
      const threadTs = stringField(fields, 'thread_ts');
      if (!channel || !threadTs || typeof fields.status !== 'string') return fail('invalid_arguments');
      store.statuses.push({ channel, thread_ts: threadTs, status: fields.status, at: Date.now() });
      return { ok: true };
    },
    'conversations.replies': (fields) => {
      const thread = store.thread(stringField(fields, 'channel') ?? '', stringField(fields, 'ts') ?? '');
      const [parent, ...replies] = thread;
      if (!parent) return fail('thread_not_found');
      const page = repliesPage(thread, fields);
      if ('error' in page) return fail(page.error);
      return {
        ok: true,
        messages: page.messages.map((message) => (message === parent ? messageJson(parent, replies) : messageJson(message))),
        has_more: page.hasMore,
        response_metadata: { next_cursor: page.nextCursor },
      };
    },
    ...context.conversations.handlers,
    ...context.assistant.handlers,
    ...context.sessions.handlers,
    // https://docs.slack.dev/reference/methods/conversations.open: one user → the bot's DM with them (the same id each time).
    'conversations.open': (fields) => {
      const users = (stringField(fields, 'users') ?? '').split(',').filter(Boolean);
      if (users.length === 0) return fail('users_list_not_supplied');
      if (users.length > 1) return fail('not_supported', { detail: 'the emulator opens one-to-one DMs only' });
      const user = users[0]!;
      const existing = store.directChannels.get(user);
      const id = existing ?? newSlackId('D');
      store.directChannels.set(user, id);
      return { ok: true, ...(existing ? { no_op: true, already_open: true } : {}), channel: { id } };
    },
    // https://docs.slack.dev/reference/methods/files.info (scope files:read)
    'files.info': (fields) => {
      const shared = context.store.sharedFiles.get(stringField(fields, 'file') ?? '');
      if (!shared) return fail('file_not_found');
      return { ok: true, file: sharedFileJson(shared, identity, context.baseUrl()) };
    },
    'users.info': (fields) => {
      const id = stringField(fields, 'user');
      if (!id) return fail('user_not_found');
      const isBot = id === identity.botUserId;
      const name = isBot ? 'tsuka' : `user-${id.toLowerCase()}`;
      return {
        ok: true,
        user: {
          id,
          team_id: identity.teamId,
          name,
          real_name: isBot ? 'TSUKA' : `User ${id}`,
          is_bot: isBot,
          deleted: false,
          tz: 'UTC',
          profile: { display_name: name, real_name: isBot ? 'TSUKA' : `User ${id}`, image_48: `https://avatars.invalid/${id}.png` },
        },
      };
    },
    'files.getUploadURLExternal': (fields) => {
      const filename = stringField(fields, 'filename');
      const length = Number(fields.length);
      if (!filename || !Number.isInteger(length) || length < 0) return fail('invalid_arguments');
      const id = newSlackId('F');
      store.pendingUploads.set(id, { id, filename, length });
      return { ok: true, upload_url: `${context.baseUrl()}/upload/${id}`, file_id: id };
    },
    'files.completeUploadExternal': (fields) => {
      if (!Array.isArray(fields.files) || fields.files.length === 0) return fail('invalid_arguments');
      const channel = stringField(fields, 'channel_id');
      const threadTs = stringField(fields, 'thread_ts');
      const comment = stringField(fields, 'initial_comment');
      const completed: Body[] = [];
      for (const entry of fields.files as unknown[]) {
        const id = typeof entry === 'object' && entry !== null && 'id' in entry ? String(entry.id) : '';
        const upload = store.pendingUploads.get(id);
        if (!upload?.bytes) return fail('file_not_found', { file_id: id });
        const title = typeof entry === 'object' && entry !== null && 'title' in entry && typeof entry.title === 'string' ? entry.title : upload.filename;
        store.pendingUploads.delete(id);
        store.files.push({
          id,
          name: upload.filename,
          title,
          content: upload.bytes.toString('utf8'),
          bytes: upload.bytes,
          ...(channel ? { channel } : {}),
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(comment ? { initial_comment: comment } : {}),
        });
        completed.push({ id, name: upload.filename, title, size: upload.bytes.length });
      }
      return { ok: true, files: completed };
    },
  };

  const authorize = (method: string, token: string | undefined): Body | undefined => {
    if (!token) return fail('not_authed');
    if (token !== context.botToken && token !== context.appToken) return fail('invalid_auth');
    const wantsAppToken = method === 'apps.connections.open';
    if (wantsAppToken !== (token === context.appToken)) return fail('not_allowed_token_type');
    const needed = REQUIRED_SCOPES[method];
    if (needed && !context.scopes().includes(needed)) return fail('missing_scope', { needed, provided: context.scopes().join(',') });
    return undefined;
  };

  return {
    methods: Object.keys(handlers),
    call(method, fields, token) {
      const scopes = context.scopes().join(',');
      const headers: Record<string, string> = { 'x-oauth-scopes': scopes, 'x-accepted-oauth-scopes': REQUIRED_SCOPES[method] ?? '' };
      const handler = handlers[method];
      if (!handler) return { status: 200, headers, body: fail('unknown_method') };
      const refusal =
        authorize(method, token) ??
        ((STREAMING_METHODS as readonly string[]).includes(method) ? streamingRefusal(context.streamingRefusal(), context.scopes()) : undefined);
      if (refusal) return { status: 200, headers, body: refusal };
      const window = context.faults.active(method);
      if (window) {
        const answer = faultAnswer(window);
        context.faults.record({ method, status: answer.status, at: Date.now() });
        return { status: answer.status, headers: { ...headers, ...answer.headers }, body: answer.body };
      }
      const channel = stringField(fields, 'channel');
      const decision = context.rateLimiter.take(method, channel);
      if (decision.limited) {
        return {
          status: 429,
          headers: { ...headers, 'retry-after': String(decision.retryAfterSeconds) },
          body: fail('ratelimited'),
          rateLimit: { retryAfterSeconds: decision.retryAfterSeconds, ...(channel ? { channel } : {}) },
        };
      }
      return { status: 200, headers, body: handler(fields) };
    },
    receiveUpload(fileId, bytes) {
      const upload = store.pendingUploads.get(fileId);
      if (!upload) return false;
      upload.bytes = bytes;
      return true;
    },
  };
}
