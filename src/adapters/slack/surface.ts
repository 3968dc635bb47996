/**
 * The chat surface on Slack's Web API. Characters post with `username` + `icon_emoji`/`icon_url`
 * (scope chat:write.customize); without that scope the bot posts as itself with the name in bold.
 * https://api.slack.com/methods/chat.postMessage · https://api.slack.com/methods/chat.update
 */
import type { WebClient } from '@slack/web-api';
import type { ChatSurface, Identity } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import { blocksFor } from './cards.js';
import { toSlackMrkdwn } from './markdown.js';
import { svgToPng } from '../../commands/charts/svg-to-png.js';
import { channelRef, decodeChannel, decodeMessage, decodeUser, messageRef } from './ids.js';
import type { SlackCallLimiter } from './rate-limits.js';

/** Slack allows 40,000 characters but reads best under 4,000 (platform notes). */
export const SLACK_MAX_MESSAGE_LENGTH = 3900;

export interface SlackSurfaceOptions {
  client: WebClient;
  limiter: SlackCallLimiter;
  editIntervalMs: number;
  logger: Logger;
}

function identityFields(identity: Identity | undefined): Record<string, string> {
  if (!identity) return {};
  const avatar = identity.avatar;
  if (!avatar) return { username: identity.name };
  if (/^https?:\/\//.test(avatar)) return { username: identity.name, icon_url: avatar };
  if (/^:[\w+-]+:$/.test(avatar)) return { username: identity.name, icon_emoji: avatar };
  return { username: identity.name };
}

export interface SlackSurface extends ChatSurface {
  readonly customizeAvailable: boolean;
  /** Rewrites a message as it is shown, without its actions blocks (text and other blocks untouched). */
  removeButtons(message: { channel: string; ts: string; text: string; blocks: unknown[] }): Promise<void>;
}

export function createSlackSurface(options: SlackSurfaceOptions): SlackSurface {
  const { client, limiter, logger } = options;
  let customizeAvailable = true;
  const withName = (text: string, identity: Identity | undefined) => (identity && !customizeAvailable ? `**${identity.name}**: ${text}` : text);

  async function postMessage(channel: string, threadTs: string | undefined, text: string, identity: Identity | undefined, buttons: Parameters<typeof blocksFor>[1]): Promise<string> {
    const send = async () => {
      const body = toSlackMrkdwn(withName(text, identity));
      const response = await limiter.schedule('chat.postMessage', channel, () =>
        client.chat.postMessage({ channel, thread_ts: threadTs, text: body, blocks: blocksFor(body, buttons), unfurl_links: false, ...(customizeAvailable ? identityFields(identity) : {}) } as Parameters<WebClient['chat']['postMessage']>[0]),
      );
      return response.ts as string;
    };
    try {
      return await send();
    } catch (error) {
      if (identity && customizeAvailable && (error as { data?: { error?: string } }).data?.error === 'missing_scope') {
        customizeAvailable = false;
        logger.warn('chat:write.customize is missing: posting as the bot with the character name in bold (add the scope to post under each name)');
        return send();
      }
      throw error;
    }
  }

  return {
    platform: 'slack',
    limits: { maxMessageLength: SLACK_MAX_MESSAGE_LENGTH, editIntervalMs: options.editIntervalMs },
    get customizeAvailable() {
      return customizeAvailable;
    },
    async threadFor({ message, existingThread }) {
      return existingThread ?? message;
    },
    async postRoot({ channel, text, identity }) {
      const { team, channel: id } = decodeChannel(channel);
      const ts = await postMessage(id, undefined, text, identity, undefined);
      const ref = messageRef(team, id, ts);
      return { message: ref, thread: ref };
    },
    async post({ thread, text, identity, buttons }) {
      const { team, channel, ts } = decodeMessage(thread);
      return messageRef(team, channel, await postMessage(channel, ts, text, identity, buttons));
    },
    async edit({ message, text, identity, buttons }) {
      const { channel, ts } = decodeMessage(message);
      const body = toSlackMrkdwn(withName(text, identity));
      await limiter.schedule('chat.update', channel, () => client.chat.update({ channel, ts, text: body, blocks: blocksFor(body, buttons) ?? [] } as Parameters<WebClient['chat']['update']>[0]));
    },
    async removeButtons({ channel, ts, text, blocks }) {
      const kept = blocks.filter((block) => (block as { type?: string }).type !== 'actions');
      await limiter.schedule('chat.update', channel, () => client.chat.update({ channel, ts, text, blocks: kept } as Parameters<WebClient['chat']['update']>[0]));
    },
    async postEphemeral({ channel, thread, user, text }) {
      const { channel: id } = decodeChannel(channel);
      const threadTs = thread ? decodeMessage(thread).ts : undefined;
      await limiter.schedule('chat.postEphemeral', id, () => client.chat.postEphemeral({ channel: id, user: decodeUser(user), text: toSlackMrkdwn(text), thread_ts: threadTs }));
    },
    async uploadFile({ channel, thread, fileName, title, content }) {
      const { channel: id } = decodeChannel(channel);
      const threadTs = thread ? decodeMessage(thread).ts : undefined;
      await limiter.schedule('files.uploadV2', id, () =>
        client.filesUploadV2({ channel_id: id, ...(threadTs ? { thread_ts: threadTs } : {}), filename: fileName, title, content } as Parameters<WebClient['filesUploadV2']>[0]),
      );
    },
    async uploadImage({ channel, thread, fileName, title, svg, altText }) {
      const png = await svgToPng(svg);
      const { channel: id } = decodeChannel(channel);
      const threadTs = thread ? decodeMessage(thread).ts : undefined;
      // https://docs.slack.dev/reference/methods/files.getUploadURLExternal (alt_text for images)
      await limiter.schedule('files.uploadV2', id, () =>
        client.filesUploadV2({ channel_id: id, ...(threadTs ? { thread_ts: threadTs } : {}), filename: fileName.replace(/\.svg$/, '.png'), title, file: png, alt_text: altText } as Parameters<WebClient['filesUploadV2']>[0]),
      );
    },
    async setStatus({ thread, text }) {
      const { channel, ts } = decodeMessage(thread);
      await limiter
        .schedule('assistant.threads.setStatus', channel, () => client.assistant.threads.setStatus({ channel_id: channel, thread_ts: ts, status: text }))
        .catch((error: unknown) => logger.debug('thread status not shown', { error }));
    },
    channelOf(thread) {
      const { team, channel } = decodeMessage(thread);
      return channelRef(team, channel);
    },
    mention: (user) => `<@${decodeUser(user)}>`,
  };
}
