/**
 * A local Discord (REST API v10 + gateway) for end-to-end tests with the real discord.js 14.
 *
 * Point the client at it with `new Client({ intents, rest: { api: emulator.apiUrl } })` and
 * `client.login(emulator.botToken)`; the gateway URL comes from `GET /gateway/bot`, as on Discord.
 * Everything listens on 127.0.0.1 (HTTP and ws on one port). Payloads are real-shaped (typed
 * with discord-api-types); limits answer with Discord's real error codes; rate limits answer 429
 * with `Retry-After`. Tests drive people through `postUserMessage`, `invokeSlashCommand` and
 * `clickButton`, and observe the bot through `messages()`, the records and `waitFor`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIMessage, APIPublicThreadChannel, APIWebhook } from 'discord-api-types/v10';
import { createGateway } from './gateway.js';
import { createCommandRoutes } from './command-routes.js';
import { createInteractionResponder } from './interaction-routes.js';
import { botPermissions, threadPayload, webhookPayload } from './payloads.js';
import { createRestRateLimiter } from './rate-limiter.js';
import {
  createRecorder,
  type CommandPutRecord,
  type FollowUpRecord,
  type GatewayRecord,
  type InteractionResponseRecord,
  type RateLimitRecord,
  type RestCallRecord,
  type WaitForOptions,
} from './records.js';
import { createRestHandler } from './rest-server.js';
import { createRestRoutes, dmChannel } from './rest-routes.js';
import { createEmulatorState, type MessageRevision, type RecordedFile } from './state.js';
import {
  createTestActions,
  type ButtonClickInput,
  type SelectOptionInput,
  type InvokedInteraction,
  type SlashCommandInput,
  type UserMessageInput,
} from './test-actions.js';
import { createWebhookRoutes } from './webhook-routes.js';
import { createWorld } from './world.js';

export type { CommandPutRecord, FollowUpRecord, GatewayRecord, InteractionResponseRecord, RateLimitRecord, RestCallRecord, WaitForOptions };
export type { ButtonClickInput, SelectOptionInput, InvokedInteraction, SlashCommandInput, UserMessageInput, MessageRevision, RecordedFile };

/** Options of `startDiscordEmulator`; every field has a default. */
export interface DiscordEmulatorOptions {
  applicationId?: string;
  /** Defaults to the application id, as for real bots. */
  botUserId?: string;
  /** The token the bot must present (`Authorization: Bot <token>`, IDENTIFY); default `DEFAULT_BOT_TOKEN`. */
  botToken?: string;
  guildId?: string;
  /** Text channels of the guild; default one channel `general` with id `DEFAULT_CHANNEL_ID`. */
  channels?: { id: string; name: string }[];
  /** People known up front (members in GUILD_CREATE); the first one owns the guild. Others are created on first use. */
  users?: { id: string; username: string }[];
  permissions?: { manageWebhooks?: boolean };
  rateLimits?: { messagesPerChannelPer5s?: number; enabled?: boolean };
  /** Whether the privileged MESSAGE_CONTENT intent is approved; asking without approval closes the gateway with 4014. */
  messageContentIntentAllowed?: boolean;
}

/** A message as the emulator holds it. */
export interface RecordedMessage {
  id: string;
  channelId: string;
  /** The author's display name: the bot's, a person's, or the `username` a webhook was executed with. */
  username: string;
  authorId: string;
  webhookId: string | undefined;
  /** The `avatar_url` a webhook message was sent with. */
  avatarUrl: string | undefined;
  content: string;
  flags: number;
  /** The current real-shaped object. */
  payload: APIMessage;
  /** Every version, oldest first; `revisions.length - 1` edits. */
  revisions: MessageRevision[];
  files: RecordedFile[];
  deleted: boolean;
}

/** A running emulator. */
export interface DiscordEmulator {
  /** `http://127.0.0.1:PORT/api`, for `rest: { api }`. */
  readonly apiUrl: string;
  readonly gatewayUrl: string;
  readonly botToken: string;
  readonly applicationId: string;
  readonly botUserId: string;
  readonly guildId: string;
  /** Id of the first channel. */
  readonly defaultChannelId: string;
  /** A person starts a public thread from a message (the thread's id is the message's); returns the thread id. */
  startThread(input: { channelId: string; messageId: string; name: string; userId: string }): string;
  /** A new text channel in the guild, announced to the bot (CHANNEL_CREATE); returns its id. Tests sharing one bot take one each. */
  createChannel(name?: string): string;
  /** The DM channel between the bot and `userId` (opened on first use), where `postUserMessage` writes a direct message. */
  openDirectChannel(userId: string): string;
  /** Stores a person's message and dispatches MESSAGE_CREATE (content emptied for sessions without MESSAGE_CONTENT unless it mentions the bot). */
  postUserMessage(input: UserMessageInput): APIMessage;
  /** Dispatches INTERACTION_CREATE for a registered chat-input command; throws when no such command is registered. */
  invokeSlashCommand(input: SlashCommandInput): Promise<InvokedInteraction>;
  /** Dispatches INTERACTION_CREATE (component type 2) for an enabled button of a stored message; throws otherwise. */
  clickButton(input: ButtonClickInput): Promise<InvokedInteraction>;
  /** Dispatches INTERACTION_CREATE (component type 3) for an option of a string select of a stored message; throws otherwise. */
  chooseOption(input: SelectOptionInput): Promise<InvokedInteraction>;
  /** Sends any dispatch to every session (intents applied), e.g. `dispatch('GUILD_MEMBER_ADD', data)`. */
  dispatch(eventName: string, data: unknown): void;
  /** From now on, REST calls of `method` whose path matches `path` answer HTTP `status` for `durationMs` (an outage). */
  /** `method: '*'` fails every method on matching paths. */
  injectFaults(window: { method: string; path: RegExp; status: 500 | 502 | 503; durationMs: number }): void;
  /** Messages of one channel or thread, or all, in creation order (deleted ones flagged). */
  messages(channelId?: string): RecordedMessage[];
  threads(): APIPublicThreadChannel[];
  webhooks(): APIWebhook[];
  /** The image a webhook was created with (its `avatar` data), if any. */
  webhookAvatar(webhookId: string): { contentType: string; bytes: Buffer } | undefined;
  /** Adds another application's webhook to a channel (to fill it up to Discord's 15). */
  addForeignWebhook(channelId: string, name?: string): APIWebhook;
  readonly interactionResponses: readonly InteractionResponseRecord[];
  readonly followUps: readonly FollowUpRecord[];
  readonly commandPuts: readonly CommandPutRecord[];
  readonly calls: readonly RestCallRecord[];
  readonly rateLimited: readonly RateLimitRecord[];
  /** Connects, IDENTIFYs, RESUMEs and closes on the gateway. */
  readonly gatewayLog: readonly GatewayRecord[];
  /** Resolves with the predicate's first truthy value, re-checked on every recorded change; rejects after `timeoutMs` (5000) listing the last calls. */
  waitFor<T>(predicate: () => T | false | null | undefined, options?: WaitForOptions): Promise<T>;
  /** Closes the open gateway sockets with `code` (default 4000, which discord.js resumes from). */
  disconnectGateway(code?: number): Promise<void>;
  /** Stops everything; safe to call twice. */
  close(): Promise<void>;
}

export const DEFAULT_APPLICATION_ID = '1250000000000000001';
export const DEFAULT_GUILD_ID = '1250000000000000100';
export const DEFAULT_CHANNEL_ID = '1250000000000000200';
export const DEFAULT_USER = { id: '1250000000000000300', username: 'ana' };
export const DEFAULT_BOT_TOKEN = 'MTI1MDAwMDAwMDAwMDAwMDAwMQ.emulator.discord-bot-token';
/** discord.js resumes after this close code (an unknown error). */
const DEFAULT_DISCONNECT_CODE = 4000;

/** Starts an emulator on 127.0.0.1 with a free port. */
export async function startDiscordEmulator(options: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const applicationId = options.applicationId ?? DEFAULT_APPLICATION_ID;
  const botToken = options.botToken ?? DEFAULT_BOT_TOKEN;
  const manageWebhooks = options.permissions?.manageWebhooks ?? true;
  const channels = options.channels ?? [{ id: DEFAULT_CHANNEL_ID, name: 'general' }];
  const state = createEmulatorState({
    applicationId,
    botUserId: options.botUserId ?? applicationId,
    guildId: options.guildId ?? DEFAULT_GUILD_ID,
    channels,
    users: options.users ?? [DEFAULT_USER],
  });
  const recorder = createRecorder();
  let port = 0;
  const origin = (): string => `http://127.0.0.1:${port}`;
  const gatewayUrl = (): string => `ws://127.0.0.1:${port}/gateway`;

  const gateway = createGateway({
    state,
    recorder,
    botToken,
    messageContentIntentAllowed: options.messageContentIntentAllowed ?? true,
    manageWebhooks,
    url: gatewayUrl,
  });
  const world = createWorld(state, gateway, recorder, origin);
  const responder = createInteractionResponder(state, world, recorder);
  const routes = [
    ...createRestRoutes({ state, world, manageWebhooks, gatewayUrl, messageContentIntentAllowed: options.messageContentIntentAllowed ?? true }),
    ...createWebhookRoutes(state, world, responder),
    responder.route,
    ...createCommandRoutes(state, recorder),
  ];
  const limiter = createRestRateLimiter({
    enabled: options.rateLimits?.enabled ?? true,
    messagesPerChannelPer5s: options.rateLimits?.messagesPerChannelPer5s ?? 5,
  });
  const faultWindows: { method: string; path: RegExp; status: number; endsAt: number }[] = [];
  const faultFor = (method: string, path: string) =>
    faultWindows.find((window) => window.endsAt > Date.now() && (window.method === '*' || window.method === method) && window.path.test(path))?.status;
  const server = createServer(createRestHandler({ routes, recorder, limiter, botToken, faultFor, attachment: (id) => state.attachments.get(id) }));
  server.on('upgrade', (request, socket, head) => gateway.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  const actions = createTestActions(state, world, gateway, botPermissions(manageWebhooks));
  let closing: Promise<void> | undefined;

  return {
    apiUrl: `${origin()}/api`,
    gatewayUrl: gatewayUrl(),
    botToken,
    applicationId,
    botUserId: state.botUserId,
    guildId: state.guildId,
    defaultChannelId: channels[0]?.id ?? '',
    postUserMessage: (input) => actions.postUserMessage(input),
    openDirectChannel: (userId) => dmChannel(state, userId).id,
    createChannel: (name) => world.createChannel(name).id,
    startThread: (input) => world.createThread({ parentId: input.channelId, id: input.messageId, name: input.name, ownerId: input.userId }).id,
    invokeSlashCommand: async (input) => actions.invokeSlashCommand(input),
    clickButton: async (input) => actions.clickButton(input),
    chooseOption: async (input) => actions.chooseOption(input),
    dispatch: (eventName, data) => gateway.dispatch(eventName, data),
    injectFaults: (window) => void faultWindows.push({ ...window, endsAt: Date.now() + window.durationMs }),
    messages: (channelId) =>
      state.messagesIn(channelId).map((stored) => ({
        id: stored.payload.id,
        channelId: stored.payload.channel_id,
        username: stored.payload.author.username,
        authorId: stored.payload.author.id,
        webhookId: stored.payload.webhook_id,
        avatarUrl: stored.avatarUrl,
        content: stored.payload.content,
        flags: stored.payload.flags ?? 0,
        payload: stored.payload,
        revisions: stored.revisions,
        files: stored.files,
        deleted: stored.deleted,
      })),
    threads: () => [...state.channels.values()].filter((channel) => channel.kind === 'thread').map((thread) => threadPayload(state, thread)),
    webhooks: () => [...state.webhooks.values()].map((webhook) => webhookPayload(state, webhook)),
    webhookAvatar: (webhookId) => state.webhooks.get(webhookId)?.avatarImage,
    addForeignWebhook(channelId, name = 'Other bot') {
      const webhook = {
        id: state.nextId(),
        token: randomBytes(34).toString('base64url'),
        channelId,
        name,
        avatar: null,
        createdBy: state.botUserId,
        applicationId: '1',
      };
      state.webhooks.set(webhook.id, webhook);
      return webhookPayload(state, webhook);
    },
    interactionResponses: recorder.interactionResponses,
    followUps: recorder.followUps,
    commandPuts: recorder.commandPuts,
    calls: recorder.calls,
    rateLimited: recorder.rateLimited,
    gatewayLog: recorder.gateway,
    waitFor: (predicate, waitOptions) => recorder.waitFor(predicate, waitOptions),
    disconnectGateway: (code = DEFAULT_DISCONNECT_CODE) => gateway.disconnect(code),
    close() {
      closing ??= (async () => {
        await gateway.close();
        server.closeAllConnections();
        await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      })();
      return closing;
    },
  };
}
