/**
 * Bot-token REST routes: gateway discovery, users, the application, channels, messages,
 * threads, reactions, typing and webhook management.
 * https://discord.com/developers/docs/resources/message
 */
import { createHash, randomBytes } from 'node:crypto';
import { MessageType } from 'discord-api-types/v10';
import {
  DiscordApiError,
  missingPermissions,
  numberField,
  stringField,
  unknownChannel,
  unknownMessage,
  invalidFormBody,
  type Route,
  type RouteContext,
} from './http-kit.js';
import { applicationPayload } from './interaction-payloads.js';
import { channelPayload, memberPayload, userPayload, webhookPayload } from './payloads.js';
import type { ChannelInfo, EmulatorState, WebhookInfo } from './state.js';
import { readMessageContent, type World } from './world.js';

/** What the routes need from the emulator. */
export interface RouteDependencies {
  state: EmulatorState;
  world: World;
  manageWebhooks: boolean;
  gatewayUrl: () => string;
  /** Whether the application has the Message Content intent (reported in its flags). */
  messageContentIntentAllowed?: boolean;
}

const DISCORD_MAX_WEBHOOK_NAME_LENGTH = 80;
/** Webhooks per channel (https://github.com/discord/discord-api-docs/pull/5966), and the error past them. */
export const DISCORD_MAX_WEBHOOKS_PER_CHANNEL = 15;
const MAX_WEBHOOKS_REACHED = 30007;

/** Image data (`data:image/png;base64,…`), as Create Webhook's `avatar` takes it: the image, or a 400. */
function avatarData(value: unknown): { contentType: string; bytes: Buffer; hash: string } | undefined {
  if (value === undefined || value === null) return undefined;
  const match = typeof value === 'string' ? /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+=*)$/.exec(value) : null;
  const bytes = match ? Buffer.from(match[2]!, 'base64') : Buffer.alloc(0);
  if (!match || bytes.length === 0) throw invalidFormBody('avatar', 'IMAGE_INVALID', 'Invalid image data');
  return { contentType: match[1]!, bytes, hash: createHash('sha256').update(bytes).digest('hex').slice(0, 32) };
}
const DEFAULT_MESSAGE_PAGE = 50;

/** The bot-token routes. */
export function createRestRoutes(deps: RouteDependencies): Route[] {
  const { state, world } = deps;

  const channelOf = (context: RouteContext): ChannelInfo => {
    const channel = state.channels.get(context.params['channelId'] ?? '');
    if (!channel) throw unknownChannel();
    return channel;
  };

  const startThread = (context: RouteContext, channel: ChannelInfo, id: string) => {
    if (channel.kind !== 'text') throw new DiscordApiError(400, 50024, 'Cannot execute action on this channel type');
    const thread = world.createThread({
      parentId: channel.id,
      id,
      name: stringField(context.body, 'name') ?? '',
      ownerId: state.botUserId,
      autoArchiveMinutes: numberField(context.body, 'auto_archive_duration'),
    });
    return { status: 201, body: channelPayload(state, thread) };
  };
  const messageOf = (context: RouteContext) => {
    const message = world.findMessage(context.params['messageId'] ?? '', channelOf(context).id);
    if (!message) throw unknownMessage();
    return message;
  };
  const messageChannel = (context: RouteContext): string | undefined => context.params['channelId'];

  return [
    {
      method: 'GET',
      pattern: '/gateway/bot',
      auth: 'bot',
      handle: () => ({
        status: 200,
        body: {
          url: deps.gatewayUrl(),
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
        },
      }),
    },
    { method: 'GET', pattern: '/gateway', auth: 'none', handle: () => ({ status: 200, body: { url: deps.gatewayUrl() } }) },
    {
      method: 'GET',
      pattern: '/users/@me',
      auth: 'bot',
      handle: () => ({ status: 200, body: { ...userPayload(state.user(state.botUserId)), verified: true, mfa_enabled: false, flags: 0 } }),
    },
    {
      method: 'POST',
      pattern: '/users/@me/channels',
      auth: 'bot',
      handle: ({ body }) => {
        const recipientId = stringField(body, 'recipient_id');
        if (!recipientId) throw invalidFormBody('recipient_id', 'BASE_TYPE_REQUIRED', 'This field is required');
        return { status: 200, body: channelPayload(state, dmChannel(state, recipientId)) };
      },
    },
    {
      method: 'GET',
      pattern: '/users/:userId',
      auth: 'bot',
      handle: ({ params }) => {
        const user = state.users.get(params['userId'] ?? '');
        if (!user) throw new DiscordApiError(404, 10013, 'Unknown User');
        return { status: 200, body: userPayload(user) };
      },
    },
    {
      method: 'GET',
      pattern: '/applications/@me',
      auth: 'bot',
      handle: () => ({ status: 200, body: applicationPayload(state, deps.messageContentIntentAllowed ?? true) }),
    },
    {
      method: 'GET',
      pattern: '/oauth2/applications/@me',
      auth: 'bot',
      handle: () => ({ status: 200, body: applicationPayload(state, deps.messageContentIntentAllowed ?? true) }),
    },
    {
      method: 'GET',
      pattern: '/guilds/:guildId/members/:userId',
      auth: 'bot',
      major: 'guildId',
      handle: ({ params }) => {
        const user = state.users.get(params['userId'] ?? '');
        if (params['guildId'] !== state.guildId || !user) throw new DiscordApiError(404, 10007, 'Unknown Member');
        return { status: 200, body: memberPayload(state, user) };
      },
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => ({ status: 200, body: channelPayload(state, channelOf(context)) }),
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId/messages',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        const limit = Number(context.query.get('limit') ?? DEFAULT_MESSAGE_PAGE);
        const before = context.query.get('before');
        // Snowflakes grow with time: `before` keeps the older messages.
        const live = state
          .messagesIn(channelOf(context).id)
          .filter((message) => !message.deleted && (before === null || BigInt(message.payload.id) < BigInt(before)));
        return {
          status: 200,
          body: live
            .slice(-limit)
            .reverse()
            .map((message) => message.payload),
        };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/messages',
      auth: 'bot',
      major: 'channelId',
      messageChannel,
      handle: (context) => {
        const channel = channelOf(context);
        const content = readMessageContent(context.body, context.files, true);
        const stored = world.createMessage({
          channelId: channel.id,
          author: state.user(state.botUserId),
          content: content.content,
          embeds: content.embeds,
          components: content.components,
          flags: content.flags,
          files: content.files,
          type: context.body['message_reference'] === undefined ? MessageType.Default : MessageType.Reply,
        });
        return { status: 200, body: stored.payload };
      },
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => ({ status: 200, body: messageOf(context).payload }),
    },
    {
      method: 'PATCH',
      pattern: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      major: 'channelId',
      messageChannel,
      handle: (context) => {
        const stored = messageOf(context);
        if (stored.payload.author.id !== state.botUserId) {
          throw new DiscordApiError(403, 50005, 'Cannot edit a message authored by another user');
        }
        return { status: 200, body: world.editMessage(stored, readMessageContent(context.body, context.files, false)).payload };
      },
    },
    {
      method: 'DELETE',
      pattern: '/channels/:channelId/messages/:messageId',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        world.deleteMessage(messageOf(context));
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/messages/:messageId/threads',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        const channel = channelOf(context);
        if (channel.kind !== 'text') throw new DiscordApiError(400, 50024, 'Cannot execute action on this channel type');
        // A thread started from a message has that message's id (Discord's rule).
        return startThread(context, channel, messageOf(context).payload.id);
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/threads',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        return startThread(context, channelOf(context), state.nextId());
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/typing',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        channelOf(context);
        return { status: 204 };
      },
    },
    {
      method: 'PUT',
      pattern: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        const payload = messageOf(context).payload;
        const name = context.params['emoji'] ?? '';
        const reactions = payload.reactions ?? [];
        if (!reactions.some((reaction) => reaction.emoji.name === name)) {
          reactions.push({ count: 1, count_details: { burst: 0, normal: 1 }, me: true, me_burst: false, burst_colors: [], emoji: { id: null, name } });
        }
        payload.reactions = reactions;
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/channels/:channelId/webhooks',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        const channel = channelOf(context);
        if (!deps.manageWebhooks) throw missingPermissions();
        const hooks = [...state.webhooks.values()].filter((hook) => hook.channelId === channel.id);
        return { status: 200, body: hooks.map((hook) => webhookPayload(state, hook)) };
      },
    },
    {
      method: 'POST',
      pattern: '/channels/:channelId/webhooks',
      auth: 'bot',
      major: 'channelId',
      handle: (context) => {
        const channel = channelOf(context);
        if (!deps.manageWebhooks) throw missingPermissions();
        if (channel.kind !== 'text') throw new DiscordApiError(400, 50024, 'Cannot execute action on this channel type');
        const name = stringField(context.body, 'name') ?? '';
        if (name.length < 1 || name.length > DISCORD_MAX_WEBHOOK_NAME_LENGTH) {
          throw invalidFormBody('name', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_WEBHOOK_NAME_LENGTH} in length.`);
        }
        if ([...state.webhooks.values()].filter((hook) => hook.channelId === channel.id).length >= DISCORD_MAX_WEBHOOKS_PER_CHANNEL)
          throw new DiscordApiError(400, MAX_WEBHOOKS_REACHED, `Maximum number of webhooks reached (${DISCORD_MAX_WEBHOOKS_PER_CHANNEL})`);
        const image = avatarData((context.body as { avatar?: unknown } | undefined)?.avatar);
        const webhook: WebhookInfo = {
          id: state.nextId(),
          token: randomBytes(34).toString('base64url'),
          channelId: channel.id,
          name,
          avatar: image?.hash ?? null,
          ...(image ? { avatarImage: { contentType: image.contentType, bytes: image.bytes } } : {}),
          createdBy: state.botUserId,
        };
        state.webhooks.set(webhook.id, webhook);
        return { status: 200, body: webhookPayload(state, webhook) };
      },
    },
  ];
}

/** The DM channel with `recipientId`, opened on first use. */
export function dmChannel(state: EmulatorState, recipientId: string): ChannelInfo {
  const existing = [...state.channels.values()].find((channel) => channel.kind === 'dm' && channel.recipientId === recipientId);
  if (existing) return existing;
  state.user(recipientId);
  const channel: ChannelInfo = {
    id: state.nextId(),
    kind: 'dm',
    name: '',
    recipientId,
    autoArchiveMinutes: 0,
    position: 0,
    lastMessageId: null,
    messageCount: 0,
    createdAt: Date.now(),
  };
  state.channels.set(channel.id, channel);
  return channel;
}
