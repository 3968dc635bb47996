/**
 * The chat surface on Discord's REST API (through discord.js's REST client, which queues and
 * retries rate limits). Characters post through the channel's bot-owned webhook with `username`,
 * `avatar_url` and `thread_id`; without Manage Webhooks the bot posts itself with the name in
 * bold. Threads are started from the message they answer (the thread id equals its id).
 * https://discord.com/developers/docs/resources/webhook#execute-webhook ·
 * https://discord.com/developers/docs/resources/message#create-message
 */
import { Routes, type REST } from 'discord.js';
import type { Button, ChatSurface, Identity, MessageRef } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import { TsukaError } from '../../core/errors.js';
import { componentsFor } from './cards.js';
import {
  channelRef,
  decodeChannel,
  decodeMessage,
  decodeThread,
  decodeUser,
  DIRECT_GUILD,
  messageRef,
  threadFromMessage,
  threadRef,
  type DiscordMessageAddress,
} from './ids.js';
import { avatarEmoji, toDiscordMarkdown } from './markdown.js';
import { svgToPng } from '../../commands/charts/svg-to-png.js';
import type { DiscordEditPacer } from './rate-limits.js';
import { discordErrorCode, type DiscordWebhooks } from './webhooks.js';
import { retryWithinBudget, type RetryVerdict } from '../../commands/reply/delivery-retry.js';
import { createDiscordChannelInfo } from './channel-info.js';
import { createDiscordMembership } from './channel-members.js';
import { createDiscordThreadHistory } from './thread-history.js';
import { createDiscordFiles } from './files.js';

/** Discord refuses message content over 2,000 characters (error 50035). */
export const DISCORD_MAX_MESSAGE_LENGTH = 2000;
/** Room kept for the fallback's `🔧 **Name**: ` prefix, so a part never crosses the limit. */
export const DISCORD_NAME_PREFIX_RESERVE = 100;
export const DISCORD_MAX_THREAD_NAME_LENGTH = 100;
export const DISCORD_MAX_WEBHOOK_USERNAME_LENGTH = 80;
/** Threads archive after a day without messages. */
const THREAD_AUTO_ARCHIVE_MINUTES = 1440;
const THREAD_ALREADY_CREATED = 160004;
const UNKNOWN_WEBHOOK = 10015;
/** Model output never pings @everyone, @here or roles; user mentions (`Approved by @ana`) do. */
const ALLOWED_MENTIONS = { parse: ['users'] };

export interface DiscordSurfaceOptions {
  rest: () => REST;
  webhooks: DiscordWebhooks;
  pacer: DiscordEditPacer;
  editIntervalMs: number;
  logger: Logger;
  /** How long a post or edit is retried on 5xx and network errors (429s the REST client waits out itself). */
  retryBudgetMs?: number;
  /** The REST base URL: attachments are downloaded from its host and Discord's CDN only. */
  apiUrl?: string;
  /** This bot's user and application ids: its own messages are left out of thread history. */
  bot?: () => { userId: string; applicationId: string };
}

const NETWORK_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * discord.js's REST client retries a 5xx three times at once and then throws (HTTPError with
 * `status`); a network failure throws with a `code`. Both are worth waiting out; API errors
 * (4xx with a Discord code) are not.
 */
export function classifyDiscordError(error: unknown): RetryVerdict | undefined {
  const failure = (error ?? {}) as { status?: unknown; code?: unknown; name?: unknown };
  if (typeof failure.status === 'number' && failure.status >= 500) return { reason: `HTTP ${failure.status}` };
  if (typeof failure.code === 'string' && NETWORK_ERROR_CODES.has(failure.code)) return { reason: 'network error' };
  if (failure.name === 'AbortError' || failure.name === 'TimeoutError') return { reason: 'request timeout' };
  return undefined;
}

function webhookUsername(identity: Identity, ownPicture: boolean): string {
  // With a picture the face is the picture; without one the emoji stands in for it.
  const emoji = identity.avatarUrl || ownPicture ? undefined : avatarEmoji(identity.avatar);
  return (emoji ? `${emoji} ${identity.name}` : identity.name).slice(0, DISCORD_MAX_WEBHOOK_USERNAME_LENGTH);
}

/**
 * The webhook a character posts through: the channel's shared one with the picture's URL, or,
 * without a URL, the character's own (its picture set on the webhook: no public address needed).
 */
async function webhookFor(webhooks: DiscordWebhooks, where: { guild: string; parent: string }, identity: Identity | undefined) {
  // Discord fetches the picture itself: the character's URL or its generated picture under TSUKA_PUBLIC_URL.
  const avatarUrl = identity?.avatarUrl ?? (identity?.avatar && /^https:\/\//.test(identity.avatar) ? identity.avatar : undefined);
  // A DM has no webhooks: the bot posts itself, the character's name in bold.
  const shared = identity && where.guild !== DIRECT_GUILD ? await webhooks.forChannel(where.parent) : undefined;
  const own = shared && !avatarUrl && identity?.character ? await webhooks.forCharacter(where.parent, identity.character) : undefined;
  return { hook: own ?? shared, own, avatarUrl };
}

function namePrefix(identity: Identity | undefined): string {
  if (!identity) return '';
  const emoji = avatarEmoji(identity.avatar);
  return `${emoji ? `${emoji} ` : ''}**${identity.name}**: `;
}

function messageId(response: unknown): string {
  const id = (response as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw new Error('Discord answered a message create without a message id');
  return id;
}

export function createDiscordSurface(options: DiscordSurfaceOptions): ChatSurface {
  const { webhooks, pacer, logger } = options;
  const channelInfo = createDiscordChannelInfo(options.rest);
  const isMember = createDiscordMembership(options.rest);
  const threadHistory = createDiscordThreadHistory(options.rest, options.bot ?? (() => ({ userId: '', applicationId: '' })));
  const downloadFile = options.apiUrl ? createDiscordFiles({ apiUrl: options.apiUrl }) : undefined;
  const withRetries = <T>(method: string, call: () => Promise<T>): Promise<T> =>
    retryWithinBudget(call, {
      platform: 'discord',
      method,
      budgetMs: options.retryBudgetMs,
      classify: classifyDiscordError,
      onRetry: (verdict, waitMs) => logger.warn('Discord call failed: trying again', { method, reason: verdict.reason, waitMs }),
    });

  /** Content within the limit, never empty; cut only when a fallback prefix overflowed a full part. */
  const fit = (text: string): string => {
    const content = toDiscordMarkdown(text) || '…';
    if (content.length <= DISCORD_MAX_MESSAGE_LENGTH) return content;
    logger.warn('Discord message cut to 2,000 characters', { length: content.length });
    return `${content.slice(0, DISCORD_MAX_MESSAGE_LENGTH - 1)}…`;
  };

  async function send(
    where: { guild: string; parent: string; channel: string },
    text: string,
    identity: Identity | undefined,
    buttons: Button[] | undefined,
    retried = false,
  ): Promise<MessageRef> {
    const rest = options.rest();
    const components = componentsFor(buttons);
    const { hook, own, avatarUrl } = await webhookFor(webhooks, where, identity);
    if (hook && identity) {
      const query = new URLSearchParams({ wait: 'true', with_components: 'true' });
      if (where.channel !== where.parent) query.set('thread_id', where.channel);
      try {
        const response = await rest.post(Routes.webhook(hook.id, hook.token), {
          auth: false,
          query,
          body: {
            content: fit(text),
            username: webhookUsername(identity, own !== undefined),
            ...(avatarUrl ? { avatar_url: avatarUrl } : {}),
            components,
            allowed_mentions: ALLOWED_MENTIONS,
          },
        });
        return messageRef({ ...where, message: messageId(response), webhook: hook.id });
      } catch (error) {
        if (discordErrorCode(error) !== UNKNOWN_WEBHOOK || retried) throw error;
        // Someone deleted the webhook: make a new one and post again.
        webhooks.forget(hook.id);
        return send(where, text, identity, buttons, true);
      }
    }
    const response = await rest.post(Routes.channelMessages(where.channel), {
      body: { content: fit(namePrefix(identity) + text), components, allowed_mentions: ALLOWED_MENTIONS },
    });
    return messageRef({ ...where, message: messageId(response) });
  }

  async function editMessage(address: DiscordMessageAddress, text: string, identity: Identity | undefined, buttons: Button[] | undefined): Promise<void> {
    const rest = options.rest();
    const components = componentsFor(buttons);
    const hook = address.webhook ? await webhooks.byId(address.webhook, address.parent) : undefined;
    if (address.webhook && !hook) throw new Error(`the webhook that posted Discord message ${address.message} is gone; it cannot be edited`);
    await pacer.edit(address.channel, address.message, async () => {
      if (hook) {
        const query = new URLSearchParams({ with_components: 'true' });
        if (address.channel !== address.parent) query.set('thread_id', address.channel);
        await rest.patch(Routes.webhookMessage(hook.id, hook.token, address.message), {
          auth: false,
          query,
          body: { content: fit(text), components, allowed_mentions: ALLOWED_MENTIONS },
        });
      } else {
        await rest.patch(Routes.channelMessage(address.channel, address.message), {
          body: { content: fit(namePrefix(identity) + text), components, allowed_mentions: ALLOWED_MENTIONS },
        });
      }
    });
  }

  /** The message's buttons and menus removed, its content untouched (Discord edits only the fields sent). */
  async function clearComponents(address: DiscordMessageAddress): Promise<void> {
    const rest = options.rest();
    const hook = address.webhook ? await webhooks.byId(address.webhook, address.parent) : undefined;
    if (address.webhook && !hook) throw new Error(`the webhook that posted Discord message ${address.message} is gone; it cannot be edited`);
    await pacer.edit(address.channel, address.message, async () => {
      if (!hook) return void (await rest.patch(Routes.channelMessage(address.channel, address.message), { body: { components: [] } }));
      const query = new URLSearchParams({ with_components: 'true' });
      if (address.channel !== address.parent) query.set('thread_id', address.channel);
      await rest.patch(Routes.webhookMessage(hook.id, hook.token, address.message), { auth: false, query, body: { components: [] } });
    });
  }

  async function startThread(address: DiscordMessageAddress, title: string): Promise<string> {
    const name = title.replace(/\s+/g, ' ').trim().slice(0, DISCORD_MAX_THREAD_NAME_LENGTH) || 'TSUKA';
    try {
      await withRetries('start thread', () =>
        options.rest().post(Routes.threads(address.channel, address.message), { body: { name, auto_archive_duration: THREAD_AUTO_ARCHIVE_MINUTES } }),
      );
    } catch (error) {
      // A second mention of the same message (or a re-delivery) finds the thread already there.
      if (discordErrorCode(error) !== THREAD_ALREADY_CREATED) throw error;
    }
    return threadFromMessage(address);
  }

  return {
    platform: 'discord',
    limits: { maxMessageLength: DISCORD_MAX_MESSAGE_LENGTH - DISCORD_NAME_PREFIX_RESERVE, editIntervalMs: options.editIntervalMs },
    async threadFor({ message, existingThread, title }) {
      if (existingThread) return existingThread;
      const address = decodeMessage(message);
      if (address.channel !== address.parent || address.guild === DIRECT_GUILD) return threadRef(address.guild, address.parent, address.channel);
      return startThread(address, title);
    },
    async postRoot({ channel, text, identity, threadTitle }) {
      const { guild, channel: id } = decodeChannel(channel);
      const message = await withRetries('create message', () => send({ guild, parent: id, channel: id }, text, identity, undefined));
      return { message, thread: await startThread(decodeMessage(message), threadTitle) };
    },
    async post({ thread, text, identity, buttons }) {
      const { guild, parent, thread: id } = decodeThread(thread);
      return withRetries('create message', () => send({ guild, parent, channel: id }, text, identity, buttons));
    },
    async edit({ message, text, identity, buttons }) {
      await withRetries('edit message', () => editMessage(decodeMessage(message), text, identity, buttons));
    },
    async clearButtons({ message }) {
      await withRetries('edit message', () => clearComponents(decodeMessage(message)));
    },
    async postEphemeral({ channel, thread, user, text }) {
      // Discord has ephemeral messages only as interaction answers: outside one, the bot
      // addresses the user in the thread (or channel), pinging only them.
      const userId = decodeUser(user);
      const target = thread ? decodeThread(thread).thread : decodeChannel(channel).channel;
      await withRetries('create message', () =>
        options.rest().post(Routes.channelMessages(target), { body: { content: fit(`<@${userId}> ${text}`), allowed_mentions: { users: [userId] } } }),
      );
    },
    async uploadFile({ channel, thread, fileName, title, content }) {
      const target = thread ? decodeThread(thread).thread : decodeChannel(channel).channel;
      await withRetries('upload file', () =>
        options.rest().post(Routes.channelMessages(target), {
          body: { content: fit(`📎 ${title}`), allowed_mentions: { parse: [] } },
          files: [{ name: fileName, data: Buffer.from(content, 'utf8'), contentType: 'text/markdown' }],
        }),
      );
    },
    async postToUser({ user, text }) {
      const dm = (await options.rest().post(Routes.userChannels(), { body: { recipient_id: decodeUser(user) } })) as { id?: string };
      if (!dm.id) throw new TsukaError('discord_no_direct_message', `Discord opened no direct message with ${user}.`);
      await options.rest().post(Routes.channelMessages(dm.id), { body: { content: fit(text), allowed_mentions: { parse: [] } } });
    },
    async uploadToUser({ user, fileName, title, content }) {
      // https://discord.com/developers/docs/resources/user#create-dm: the bot's DM channel with the user.
      const dm = (await options.rest().post(Routes.userChannels(), { body: { recipient_id: decodeUser(user) } })) as { id?: string };
      if (!dm.id) throw new TsukaError('discord_no_direct_message', `Discord opened no direct message with ${user}.`);
      await options.rest().post(Routes.channelMessages(dm.id), {
        body: { content: fit(`📎 ${title}`), allowed_mentions: { parse: [] } },
        files: [{ name: fileName, data: Buffer.from(content, 'utf8'), contentType: 'text/markdown' }],
      });
    },
    async uploadImage({ channel, thread, fileName, title, svg, altText }) {
      const png = await svgToPng(svg);
      const target = thread ? decodeThread(thread).thread : decodeChannel(channel).channel;
      // https://discord.com/developers/docs/reference#uploading-files (description is the alt text)
      await withRetries('upload file', () =>
        options.rest().post(Routes.channelMessages(target), {
          body: { content: fit(`📊 ${title}`), allowed_mentions: { parse: [] }, attachments: [{ id: 0, description: altText.slice(0, 1024) }] },
          files: [{ name: fileName.replace(/\.svg$/, '.png'), data: png, contentType: 'image/png' }],
        }),
      );
    },
    async setStatus({ thread, text }) {
      // The typing indicator is Discord's only transient status; it lasts about 10 s.
      if (!text) return;
      await options
        .rest()
        .post(Routes.channelTyping(decodeThread(thread).thread))
        .catch((error: unknown) => logger.debug('typing indicator not shown', { error }));
    },
    channelOf(thread) {
      const { guild, parent } = decodeThread(thread);
      return channelRef(guild, parent);
    },
    mention: (user) => `<@${decodeUser(user)}>`,
    channelInfo: (channel) => channelInfo(decodeChannel(channel).channel),
    isMember: (channel, user) => isMember(decodeChannel(channel).channel, decodeUser(user)),
    threadHistory,
    ...(downloadFile ? { downloadFile } : {}),
  };
}
