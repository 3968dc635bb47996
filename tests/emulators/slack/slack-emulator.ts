/**
 * A local Slack for end-to-end tests with the real @slack/bolt: the Web API over HTTP and Socket
 * Mode over a WebSocket, on 127.0.0.1 with a free port. Give `apiUrl` to Bolt as
 * `clientOptions.slackApiUrl` with the tokens `botToken`/`appToken` and `socketMode: true`.
 * It enforces what matters (tokens, scopes, rate limits with 429 + Retry-After, length limits with
 * Slack's error names, 3-second acks) and records everything so tests can assert on it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChangeWaiter, type WaitOptions } from './change-waiter.js';
import { createDeliveries, type Deliveries } from './deliveries.js';
import { routeRequest, type FileRequest, type RateLimitedCall, type RecordedCall } from './http-routes.js';
import {
  createMessageStore,
  type AddedReaction,
  type EphemeralMessage,
  type ResponseUrlPost,
  type StoredMessage,
  type ThreadStatus,
  type UploadedFile,
} from './message-store.js';
import type { WorkspaceIdentity } from './payloads.js';
import { createRateLimiter, type RateLimitSettings } from './rate-limiter.js';
import { createSocketModeServer, type AckRecord, type DisconnectReason, type EnvelopeRecord } from './socket-mode.js';
import { createWebApi } from './web-api.js';
import { createFaultInjector, type FaultedCall, type FaultWindow } from './faults.js';
import type { StreamingRefusal } from './streaming.js';
import { createConversations, type EmulatedChannel } from './conversations.js';
import { createAgentSessions, type AgentSession, type AgentSessionsOptions } from './agent-sessions.js';
import { createAssistantThreads, type AssistantTitle, type MessagingView, type SuggestedPromptsCall } from './assistant-threads.js';
import { buildAppContextChanged, buildMessagesTabOpened, type AppContextEntity } from './agent-view.js';

/** Every scope a TSUKA bot asks for (platform-notes.md), customize included. */
export const DEFAULT_SLACK_SCOPES: readonly string[] = [
  'app_mentions:read',
  'chat:write',
  'chat:write.customize',
  'commands',
  'channels:history',
  'groups:history',
  'channels:read',
  'groups:read',
  'im:read',
  'im:history',
  'reactions:write',
  'files:read',
  'files:write',
  'im:write',
  'assistant:write',
  'usergroups:read',
];

/** Options of {@link startSlackEmulator}; every field has a default. */
export interface SlackEmulatorOptions {
  botUserId?: string;
  botId?: string;
  teamId?: string;
  appId?: string;
  /** The only bot token accepted (default `xoxb-test`). */
  botToken?: string;
  /** The only app-level token accepted, for apps.connections.open (default `xapp-test`). */
  appToken?: string;
  scopes?: string[];
  rateLimits?: Partial<RateLimitSettings>;
  /** How long a delivery waits for the bot's ack before rejecting (default 3000, Slack's deadline). */
  ackTimeoutMs?: number;
  /** Refuse Slack's streaming methods with this error (default: offered). */
  streamingRefusal?: StreamingRefusal;
  /** Refuse task_update and plan_update chunks with this error (default: taken). */
  taskChunksRefusal?: string;
  /** The app's messaging experience: `assistant` (assistant_view, the default) or `agent` (agent_view). */
  messagingView?: MessagingView;
  /** Agent sessions: whether the app subscribes to agent_session_stopped, or the error the workspace refuses them with. */
  agentSessions?: Partial<AgentSessionsOptions>;
}

/** A running emulator. State getters return the live records; `messages()`/`thread()` return copies. */
export interface SlackEmulator extends Deliveries {
  /** `http://127.0.0.1:PORT/api/`: Bolt's `clientOptions.slackApiUrl`. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT`. */
  readonly baseUrl: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly appId: string;
  /** All ids at once, for the payload builders of payloads.ts (HTTP-mode tests build their own events). */
  readonly identity: WorkspaceIdentity;
  /** Every Web API call, in arrival order, with the answer it got. */
  readonly calls: readonly RecordedCall[];
  /** Every call refused with HTTP 429. */
  readonly rateLimited: readonly RateLimitedCall[];
  /** Channel messages (users' and the bot's), oldest first. */
  messages(channel?: string): StoredMessage[];
  /** Only the messages the bot posted. */
  botMessages(channel?: string): StoredMessage[];
  /** The parent then its replies, oldest first. */
  thread(channel: string, threadTs: string): StoredMessage[];
  readonly ephemerals: readonly EphemeralMessage[];
  readonly files: readonly UploadedFile[];
  /** Requests of private file URLs (`url_private_download`), with whether each carried the bot token. */
  readonly fileRequests: readonly FileRequest[];
  /** The bot's DM channel with `user` (a Slack user id), once conversations.open opened it. */
  directChannelOf(user: string): string | undefined;
  readonly statuses: readonly ThreadStatus[];
  readonly reactions: readonly AddedReaction[];
  /** Posts to response_urls (slash commands, button clicks). */
  readonly responses: readonly ResponseUrlPost[];
  /** Socket Mode envelopes sent, each with its acks. */
  readonly envelopes: readonly EnvelopeRecord[];
  /** Acks that came after the ack deadline (or for unknown envelopes). */
  readonly lateAcks: readonly AckRecord[];
  /** Socket Mode connections accepted so far. */
  readonly connections: number;
  readonly openConnections: number;
  setRateLimits(changes: Partial<RateLimitSettings>): void;
  /** From now on, `methods` answer HTTP `status` (429: with Retry-After) for `durationMs`. */
  injectFaults(window: FaultWindow): { endsAt: number };
  /** Ends every fault window now; the calls they answered stay in `faulted`. */
  clearFaults(): void;
  /** Calls answered by a fault window. */
  readonly faulted: readonly FaultedCall[];
  setScopes(scopes: readonly string[]): void;
  /** Makes a channel private/public/a DM with these members (default: public, the bot and U1…U3). */
  defineChannel(channel: Partial<EmulatedChannel> & { id: string }): EmulatedChannel;
  /** A channel no one used yet (`CNEW1`, `CNEW2`…), defined with `channel` (default: public, the bot and U1…U3); returns its id. */
  createChannel(channel?: Partial<Omit<EmulatedChannel, 'id'>>): string;
  /** A user group (`S…`) and its members, for usergroups.users.list. */
  defineUsergroup(id: string, users: string[]): void;
  /** Refuse the streaming methods from now on with `refusal`, or offer them again (undefined). */
  setStreamingRefusal(refusal: StreamingRefusal | undefined): void;
  /** Refuse task and plan chunks from now on with `error`, or take them again (undefined). */
  setTaskChunksRefusal(error: string | undefined): void;
  /** assistant.threads.setTitle calls that succeeded, in order. */
  readonly assistantTitles: readonly AssistantTitle[];
  /** assistant.threads.setSuggestedPrompts calls that succeeded, in order. */
  readonly suggestedPrompts: readonly SuggestedPromptsCall[];
  /** setSuggestedPrompts calls answered `ok` that Slack showed nothing for (a `thread_ts` on an agent-view app). */
  readonly ignoredSuggestedPrompts: readonly SuggestedPromptsCall[];
  /** Switches the app between the assistant view and the agent view (its manifest's `features`). */
  setMessagingView(view: MessagingView): void;
  /** A person opens the app's Messages tab (their DM with it): `app_home_opened` with `tab: "messages"`. */
  openMessagesTab(input: { userId: string; channelId: string }): Promise<{ eventId: string }>;
  /** What a person looks at changes while the app is visible (agent view only): `app_context_changed`. */
  changeAppContext(input: { userId: string; channelId: string; entities: readonly AppContextEntity[] }): Promise<{ eventId: string }>;
  /** A person opens a new assistant thread in their DM with the app: the root message, then `assistant_thread_started`. */
  startAssistantThread(input: { userId: string; channelId: string; contextChannelId?: string }): Promise<{ threadTs: string; eventId: string }>;
  /** Agent sessions by `channel/thread_ts`, each with its title and statuses in order. */
  readonly agentSessions: ReadonlyMap<string, AgentSession>;
  /** From now on: subscribed to agent_session_stopped or not, sessions refused with an error or offered. */
  setAgentSessions(changes: Partial<AgentSessionsOptions>): void;
  /** A person clicks the native Stop of the thread's session: `agent_session_stopped`. */
  stopAgentSession(input: { channel: string; threadTs: string; userId: string }): Promise<{ eventId: string; event: Record<string, unknown> }>;
  /** Resolves as soon as `predicate` holds; re-checked on every recorded call, ack and connection. */
  waitFor(predicate: (emulator: SlackEmulator) => boolean, options?: WaitOptions): Promise<void>;
  /** Resolves when a connection is open and at least `count` (default 1) were accepted in all. */
  waitForConnection(options?: WaitOptions & { count?: number }): Promise<void>;
  /** Sends `{type:'disconnect', reason}` to every open connection and closes them. */
  sendDisconnect(reason?: DisconnectReason): void;
  /** The next envelope goes to Socket Mode connection `number` (1 = first accepted) instead of the next in turn. */
  deliverNextTo(number: number): void;
  /** Closes sockets (with a close handshake) and the HTTP server. Idempotent. */
  close(): Promise<void>;
}

function describeCalls(calls: readonly RecordedCall[]): string {
  const last = calls.slice(-8).map((call) => {
    const error = call.response.ok === false ? ` → ${String(call.response.error)}` : ' → ok';
    const body = JSON.stringify(call.body);
    return `  ${call.method} ${body.length > 160 ? `${body.slice(0, 160)}…` : body}${error} (HTTP ${call.status})`;
  });
  return last.length > 0 ? `Last calls (${calls.length} in all):\n${last.join('\n')}` : 'No Web API call was made.';
}

/** Starts an emulator on 127.0.0.1 with a free port. */
export async function startSlackEmulator(options: SlackEmulatorOptions = {}): Promise<SlackEmulator> {
  const identity: WorkspaceIdentity = {
    botUserId: options.botUserId ?? 'U0BOT',
    botId: options.botId ?? 'B0BOT',
    teamId: options.teamId ?? 'T0TEAM',
    appId: options.appId ?? 'A0APP',
    teamDomain: 'tsuka-emulator',
  };
  const botToken = options.botToken ?? 'xoxb-test';
  const appToken = options.appToken ?? 'xapp-test';
  let scopes: readonly string[] = [...(options.scopes ?? DEFAULT_SLACK_SCOPES)];
  let baseUrl = '';
  let refusal = options.streamingRefusal;
  let chunksRefusal = options.taskChunksRefusal;
  const store = createMessageStore();
  const rateLimiter = createRateLimiter(options.rateLimits);
  const faults = createFaultInjector();
  const waiter = createChangeWaiter();
  const calls: RecordedCall[] = [];
  const rateLimited: RateLimitedCall[] = [];
  const responseUrls = new Map<string, number>();
  const serverErrors: Error[] = [];
  const socket = createSocketModeServer({
    baseWsUrl: () => baseUrl.replace(/^http/, 'ws'),
    appId: identity.appId,
    ackTimeoutMs: options.ackTimeoutMs ?? 3_000,
    onChange: () => waiter.changed(),
  });
  const conversations = createConversations(identity.botUserId, () => scopes);
  const assistant = createAssistantThreads(store, options.messagingView);
  const sessions = createAgentSessions(store, options.agentSessions);
  const webApi = createWebApi({
    store,
    rateLimiter,
    faults,
    identity,
    botToken,
    appToken,
    scopes: () => scopes,
    baseUrl: () => baseUrl,
    issueSocketUrl: () => socket.issueUrl(),
    streamingRefusal: () => refusal,
    taskChunksRefusal: () => chunksRefusal,
    conversations,
    assistant,
    sessions,
  });
  const fileRequests: FileRequest[] = [];
  const sinks = { webApi, store, calls, rateLimited, responseUrls, changed: () => waiter.changed(), botToken, scopes: () => scopes, fileRequests };

  const server = createServer((request, response) => {
    routeRequest(request, response, sinks).catch((error: unknown) => {
      serverErrors.push(error instanceof Error ? error : new Error(String(error)));
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: false, error: 'emulator_error', detail: String(error) }));
    });
  });
  server.on('upgrade', (request, duplex, head) => socket.handleUpgrade(request, duplex, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const describeState = () =>
    [
      describeCalls(calls),
      `Socket Mode: ${socket.openConnections} open of ${socket.connections} accepted; ${socket.envelopes.length} envelopes sent.`,
      serverErrors.length > 0 ? `Emulator errors: ${serverErrors.map(String).join('; ')}` : '',
    ]
      .filter(Boolean)
      .join('\n');

  let closing: Promise<void> | undefined;
  let createdChannels = 0;
  const waitForConnection = (wait: WaitOptions & { count?: number } = {}) =>
    waiter.wait(
      () => socket.openConnections > 0 && socket.connections >= (wait.count ?? 1),
      { description: `a Socket Mode connection (#${wait.count ?? 1})`, ...wait },
      describeState,
    );

  const deliveries = createDeliveries({
    socket,
    store,
    identity,
    baseUrl: () => baseUrl,
    responseUrls,
    waitForOpenConnection: () => waitForConnection({ timeoutMs: options.ackTimeoutMs ?? 3_000 }),
  });

  const emulator: SlackEmulator = {
    ...deliveries,
    apiUrl: `${baseUrl}/api/`,
    baseUrl,
    botToken,
    appToken,
    ...identity,
    identity,
    calls,
    rateLimited,
    messages: (channel) => structuredClone(store.list(channel)),
    botMessages: (channel) => structuredClone(store.list(channel).filter((m) => m.bot_id !== undefined)),
    thread: (channel, threadTs) => structuredClone(store.thread(channel, threadTs)),
    ephemerals: store.ephemerals,
    files: store.files,
    fileRequests,
    directChannelOf: (user) => store.directChannels.get(user),
    statuses: store.statuses,
    reactions: store.reactions,
    responses: store.responses,
    get envelopes() {
      return socket.envelopes;
    },
    get lateAcks() {
      return socket.lateAcks;
    },
    get connections() {
      return socket.connections;
    },
    get openConnections() {
      return socket.openConnections;
    },
    setRateLimits: (changes) => rateLimiter.configure(changes),
    injectFaults: (window) => faults.open(window),
    clearFaults: () => faults.clear(),
    faulted: faults.faulted,
    setScopes(next) {
      scopes = [...next];
    },
    defineChannel: (channel) => conversations.define(channel),
    createChannel(channel = {}) {
      createdChannels += 1;
      const id = `CNEW${createdChannels}`;
      conversations.define({ ...channel, id, name: channel.name ?? `new-${createdChannels}` });
      return id;
    },
    defineUsergroup: (id, users) => conversations.defineUsergroup(id, users),
    setStreamingRefusal(next) {
      refusal = next;
    },
    setTaskChunksRefusal(next) {
      chunksRefusal = next;
    },
    assistantTitles: assistant.titles,
    suggestedPrompts: assistant.suggestedPrompts,
    ignoredSuggestedPrompts: assistant.ignoredPrompts,
    setMessagingView(view) {
      assistant.view = view;
    },
    async openMessagesTab(input) {
      const delivered = await deliveries.deliverEvent(buildMessagesTabOpened({ ...input, eventTs: store.nextTs() }));
      return { eventId: delivered.eventId };
    },
    async changeAppContext(input) {
      const event = buildAppContextChanged({ ...input, view: assistant.view, teamId: identity.teamId, eventTs: store.nextTs() });
      const delivered = await deliveries.deliverEvent(event);
      return { eventId: delivered.eventId };
    },
    async startAssistantThread(input) {
      if (assistant.view === 'agent') throw new Error('an agent-view app gets no assistant_thread_started: use openMessagesTab');
      const { threadTs, event } = assistant.start({ ...input, teamId: identity.teamId });
      const delivered = await deliveries.deliverEvent(event);
      return { threadTs, eventId: delivered.eventId };
    },
    agentSessions: sessions.sessions,
    setAgentSessions: (changes) => Object.assign(sessions.options, changes),
    async stopAgentSession(input) {
      const event = sessions.stopEvent(input);
      const delivered = await deliveries.deliverEvent(event);
      return { eventId: delivered.eventId, event };
    },
    waitFor: (predicate, wait = {}) => waiter.wait(() => predicate(emulator), wait, describeState),
    waitForConnection,
    sendDisconnect: (reason = 'refresh_requested') => socket.sendDisconnect(reason),
    deliverNextTo: (number) => socket.deliverNextTo(number),
    close() {
      closing ??= (async () => {
        waiter.cancelAll('The Slack emulator was closed.');
        await socket.close();
        server.closeAllConnections();
        await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      })();
      return closing;
    },
  };
  return emulator;
}
