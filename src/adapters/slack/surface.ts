/**
 * The chat surface on Slack's Web API. Characters post with `username` + `icon_emoji`/`icon_url`
 * (scope chat:write.customize); without that scope the bot posts as itself with the name in bold.
 * Every call is scheduled on the workspace's budget (`call-budget.ts`); replies stream through
 * `reply-stream.ts` (Slack's streaming methods, or placeholder + chat.update).
 * https://api.slack.com/methods/chat.postMessage · https://api.slack.com/methods/chat.update
 */
import type { WebClient } from '@slack/web-api';
import type { Button, ChatSurface, Identity } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import { TsukaError } from '../../core/errors.js';
import type { CallPriority } from '../shared/call-budget.js';
import { blocksFor } from './cards.js';
import { toSlackMrkdwn } from './markdown.js';
import { svgToPng } from '../../commands/charts/svg-to-png.js';
import { channelRef, decodeChannel, decodeMessage, decodeUser, messageRef } from './ids.js';
import type { SlackCaller } from './call-budget.js';
import { createSlackReplyStream, createStreamingSupport, type SlackMessaging } from './reply-stream.js';
import { createChunkSupport } from './task-chunks.js';
import { identityFields, isMissingCustomize } from './identity.js';
import { createSlackChannelInfo } from './channel-info.js';
import { createSlackMembership } from './channel-members.js';
import { createSlackUsergroupMembers } from './usergroup-members.js';
import { findBotMessage } from './bot-message.js';
import { createSlackThreadHistory } from './thread-history.js';
import { createSlackFiles } from './files.js';

/** Slack allows 40,000 characters but reads best under 4,000 (platform notes). */
export const SLACK_MAX_MESSAGE_LENGTH = 3900;

export interface SlackSurfaceOptions {
  client: WebClient;
  caller: SlackCaller;
  editIntervalMs: number;
  logger: Logger;
  /** Use Slack's streaming methods for replies when the workspace offers them (default true). */
  streaming?: boolean;
  /** For attachments: the bot token and the API URL whose host (and subdomains) files may come from. */
  files?: { botToken: string; apiUrl: string };
  /** This bot's user and bot ids (known after auth.test): its own messages are left out of thread history. */
  bot?: () => { userId: string; botId: string };
}

export interface SlackSurface extends ChatSurface {
  readonly customizeAvailable: boolean;
  /** Rewrites a message as it is shown, without its actions blocks (text and other blocks untouched). */
  removeButtons(message: { channel: string; ts: string; text: string; blocks: unknown[] }): Promise<void>;
}

export function createSlackSurface(options: SlackSurfaceOptions): SlackSurface {
  const { client, caller, logger } = options;
  let customizeAvailable = true;
  const withName = (text: string, identity: Identity | undefined) => (identity && !customizeAvailable ? `**${identity.name}**: ${text}` : text);
  const streaming = createStreamingSupport(logger);
  const chunks = createChunkSupport(logger);
  const channelInfo = createSlackChannelInfo(client, caller);
  const isMember = createSlackMembership(client, caller);
  const downloadFile = options.files ? createSlackFiles({ client, caller, ...options.files }) : undefined;

  // https://docs.slack.dev/reference/methods/conversations.open (scope im:write): the bot's DM with the user.
  const directMessage = async (user: string): Promise<string> => {
    const opened = await caller({ method: 'conversations.open', priority: 'final', call: () => client.conversations.open({ users: decodeUser(user) }) });
    const dm = opened.channel?.id;
    if (!dm) throw new TsukaError('slack_no_direct_message', `Slack opened no direct message with ${user}.`);
    return dm;
  };

  const customizeMissing = (): void => {
    if (!customizeAvailable) return;
    customizeAvailable = false;
    logger.warn('chat:write.customize is missing: posting as the bot with the character name in bold (add the scope to post under each name)');
  };

  /** files.uploadV2 into a channel or thread, on the budget's final-text priority. */
  async function upload(
    channel: string,
    thread: string | undefined,
    fields: { filename: string; title: string; content?: string; file?: Buffer; alt_text?: string },
  ): Promise<void> {
    const { channel: id } = decodeChannel(channel);
    const threadTs = thread ? decodeMessage(thread).ts : undefined;
    await caller({
      method: 'files.uploadV2',
      channel: id,
      priority: 'final',
      call: () =>
        client.filesUploadV2({ channel_id: id, ...(threadTs ? { thread_ts: threadTs } : {}), ...fields } as Parameters<WebClient['filesUploadV2']>[0]),
    });
  }

  async function postMessage(
    channel: string,
    threadTs: string | undefined,
    text: string,
    identity: Identity | undefined,
    buttons: Button[] | undefined,
    priority: CallPriority = 'first',
    coalesceKey?: string,
    direct = false,
  ): Promise<string> {
    const send = async () => {
      const body = toSlackMrkdwn(withName(text, identity));
      const call = () =>
        client.chat.postMessage({
          channel,
          thread_ts: threadTs,
          text: body,
          blocks: blocksFor(body, buttons),
          unfurl_links: false,
          ...(customizeAvailable ? identityFields(identity) : {}),
        } as Parameters<WebClient['chat']['postMessage']>[0]);
      // `direct`: the caller already spent the budget (a reply stream's turn).
      const response = direct
        ? await caller.send('chat.postMessage', channel, call)
        : await caller({ method: 'chat.postMessage', channel, priority, coalesceKey, call });
      return response.ts as string;
    };
    try {
      return await send();
    } catch (error) {
      if (identity && customizeAvailable && isMissingCustomize(error)) {
        customizeMissing();
        return send();
      }
      throw error;
    }
  }

  async function update(
    channel: string,
    ts: string,
    text: string,
    identity: Identity | undefined,
    buttons: Button[] | undefined,
    priority: CallPriority,
    coalesceKey?: string,
    direct = false,
  ): Promise<void> {
    const body = toSlackMrkdwn(withName(text, identity));
    const call = () => client.chat.update({ channel, ts, text: body, blocks: blocksFor(body, buttons) ?? [] } as Parameters<WebClient['chat']['update']>[0]);
    if (direct) await caller.send('chat.update', channel, call);
    else await caller({ method: 'chat.update', channel, priority, coalesceKey: coalesceKey ?? `${channel}/${ts}`, call });
  }

  const messaging: SlackMessaging = {
    client,
    caller,
    logger,
    streaming,
    chunks,
    postMessage,
    update,
    setStatus: (channel, threadTs, text, priority, coalesceKey) =>
      caller({
        method: 'assistant.threads.setStatus',
        channel,
        priority,
        coalesceKey,
        call: () => client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: text }),
      }).then(
        () => undefined,
        (error: unknown) => logger.debug('thread status not shown', { error }),
      ),
    customize: { available: () => customizeAvailable, missing: customizeMissing },
  };

  async function removeButtons({ channel, ts, text, blocks }: { channel: string; ts: string; text: string; blocks: unknown[] }): Promise<void> {
    const kept = blocks.filter((block) => (block as { type?: string }).type !== 'actions');
    await caller({
      method: 'chat.update',
      channel,
      priority: 'final',
      call: () => client.chat.update({ channel, ts, text, blocks: kept } as Parameters<WebClient['chat']['update']>[0]),
    });
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
      // Edits of one message coalesce: a waiting edit is replaced by a newer one.
      await update(channel, ts, text, identity, buttons, 'final');
    },
    startStream(streamOptions) {
      const { team, channel, ts } = decodeMessage(streamOptions.thread);
      return createSlackReplyStream(messaging, {
        ...streamOptions,
        team,
        channel,
        threadTs: ts,
        recipientUser: streamOptions.recipient ? decodeUser(streamOptions.recipient) : undefined,
        useStreaming: options.streaming ?? true,
      });
    },
    startPlan({ thread, title, recipient }) {
      const { team, channel, ts } = decodeMessage(thread);
      // A plan block exists only on a streamed message, in a workspace that takes task cards.
      if (options.streaming === false || !streaming.offered(team) || !chunks.offered(team) || (!recipient && !channel.startsWith('D'))) return undefined;
      return createSlackReplyStream(messaging, {
        thread,
        team,
        channel,
        threadTs: ts,
        recipientUser: recipient ? decodeUser(recipient) : undefined,
        useStreaming: true,
        taskDisplay: 'plan',
        planTitle: title,
      });
    },
    removeButtons,
    async clearButtons({ message, thread }) {
      const { channel, ts } = decodeMessage(message);
      const shown = await findBotMessage(client, caller, { channel, threadTs: decodeMessage(thread).ts, ts });
      await removeButtons({ channel, ts, text: shown.text ?? '', blocks: shown.blocks ?? [] });
    },
    async postEphemeral({ channel, thread, user, text }) {
      const { channel: id } = decodeChannel(channel);
      const threadTs = thread ? decodeMessage(thread).ts : undefined;
      await caller({
        method: 'chat.postEphemeral',
        channel: id,
        priority: 'first',
        call: () => client.chat.postEphemeral({ channel: id, user: decodeUser(user), text: toSlackMrkdwn(text), thread_ts: threadTs }),
      });
    },
    async uploadFile({ channel, thread, fileName, title, content }) {
      await upload(channel, thread, { filename: fileName, title, content });
    },
    async postToUser({ user, text }) {
      const dm = await directMessage(user);
      await caller({
        method: 'chat.postMessage',
        channel: dm,
        priority: 'final',
        call: () => client.chat.postMessage({ channel: dm, text: toSlackMrkdwn(text) }),
      });
    },
    async uploadToUser({ user, fileName, title, content }) {
      const dm = await directMessage(user);
      await caller({
        method: 'files.uploadV2',
        channel: dm,
        priority: 'final',
        call: () => client.filesUploadV2({ channel_id: dm, filename: fileName, title, content } as Parameters<WebClient['filesUploadV2']>[0]),
      });
    },
    async uploadImage({ channel, thread, fileName, title, svg, altText }) {
      // https://docs.slack.dev/reference/methods/files.getUploadURLExternal (alt_text for images)
      await upload(channel, thread, { filename: fileName.replace(/\.svg$/, '.png'), title, file: await svgToPng(svg), alt_text: altText });
    },
    async setStatus({ thread, text }) {
      const { channel, ts } = decodeMessage(thread);
      await messaging.setStatus(channel, ts, text, 'edit', `status:${channel}/${ts}`);
    },
    channelOf(thread) {
      const { team, channel } = decodeMessage(thread);
      return channelRef(team, channel);
    },
    mention: (user) => `<@${decodeUser(user)}>`,
    channelInfo: (channel) => channelInfo(decodeChannel(channel).channel),
    isMember: (channel, user) => isMember(decodeChannel(channel).channel, decodeUser(user)),
    groupMembers: createSlackUsergroupMembers(client, caller),
    threadHistory: createSlackThreadHistory(client, caller, options.bot ?? (() => ({ userId: '', botId: '' }))),
    ...(downloadFile ? { downloadFile } : {}),
  };
}
