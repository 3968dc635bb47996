/**
 * What the emulated users do, delivered over Socket Mode: events (plain, retried, duplicated),
 * mentions and thread replies (stored in the channel, then delivered), slash commands and button clicks.
 */
import { randomUUID } from 'node:crypto';
import type { MessageStore, SharedFile, StoredMessage } from './message-store.js';
import { sharedFileJson } from './web-api.js';
import {
  buildAppMentionEvent,
  buildBlockActionsPayload,
  buildEnvelope,
  buildEventCallback,
  buildSlashCommandPayload,
  buildUserMessageEvent,
  newSlackId,
  newTriggerId,
  type BlockActionInput,
  type SlashCommandInput,
  type WorkspaceIdentity,
} from './payloads.js';
import type { AckRecord, SocketModeServer } from './socket-mode.js';

/** Options of an event delivery: Slack's retry fields, or fixed ids to replay a delivery. */
export interface DeliveryOptions {
  retryAttempt?: number;
  /** e.g. `timeout`, as Slack sets it on re-deliveries. */
  retryReason?: string;
  eventId?: string;
  envelopeId?: string;
}

/** The bot's ack of one envelope. `ackPayload` is what it passed to ack() (slash command replies). */
export interface DeliveryResult {
  envelopeId: string;
  ackMs: number;
  ackPayload?: unknown;
}

/** The ack of an Events API envelope. */
export interface EventDeliveryResult extends DeliveryResult {
  eventId: string;
}

/** A user's mention of the bot: `text` is what follows `<@BOT>` (it is added when missing). */
export interface MentionInput {
  userId: string;
  channelId: string;
  text: string;
  ts?: string;
  /** Set when the mention is typed inside a thread (the parent's ts). */
  threadTs?: string;
  /** Files attached to the message (from {@link Deliveries.shareFile}). */
  files?: Record<string, unknown>[];
}

/** A user's reply in a thread, delivered as a `message` event. */
export interface ThreadMessageInput {
  userId: string;
  channelId: string;
  threadTs: string;
  text: string;
  ts?: string;
  files?: Record<string, unknown>[];
}

/** A delivered user message: its ts (stored in the channel) and the event as sent. */
export interface UserMessageDelivery extends EventDeliveryResult {
  ts: string;
  threadTs?: string;
  event: Record<string, unknown>;
}

/** A delivered slash command and the URLs it carried. */
export interface SlashCommandDelivery extends DeliveryResult {
  responseUrl: string;
  triggerId: string;
  payload: Record<string, string>;
}

/** A delivered button click. */
export interface BlockActionDelivery extends DeliveryResult {
  responseUrl: string;
  triggerId: string;
  actionTs: string;
  payload: Record<string, unknown>;
}

/** Everything the delivery helpers need from the emulator. */
export interface DeliveryContext {
  socket: SocketModeServer;
  store: MessageStore;
  identity: WorkspaceIdentity;
  baseUrl: () => string;
  responseUrls: Map<string, number>;
  /** Resolves when a Socket Mode connection is open (deliveries right after a reconnect wait for it). */
  waitForOpenConnection: () => Promise<void>;
}

const toResult = (ack: AckRecord): DeliveryResult => ({
  envelopeId: ack.envelopeId,
  ackMs: ack.ackMs,
  ...(ack.payload !== undefined ? { ackPayload: ack.payload } : {}),
});

function findButton(blocks: unknown[] | undefined, actionId: string): { label?: string; blockId?: string } {
  for (const block of blocks ?? []) {
    if (typeof block !== 'object' || block === null) continue;
    const record = block as Record<string, unknown>;
    const candidates = [...(Array.isArray(record.elements) ? record.elements : []), record.accessory];
    for (const element of candidates) {
      if (typeof element !== 'object' || element === null) continue;
      const button = element as Record<string, unknown>;
      if (button.action_id !== actionId) continue;
      const text = button.text as Record<string, unknown> | undefined;
      return {
        ...(typeof text?.text === 'string' ? { label: text.text } : {}),
        ...(typeof record.block_id === 'string' ? { blockId: record.block_id } : {}),
      };
    }
  }
  return {};
}

function messageForPayload(message: StoredMessage | undefined, ts: string, teamId: string): Record<string, unknown> {
  if (!message) return { type: 'message', ts, text: '' };
  return {
    type: 'message',
    user: message.user,
    ...(message.bot_id ? { bot_id: message.bot_id } : {}),
    text: message.text,
    ts: message.ts,
    team: teamId,
    ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    ...(message.blocks ? { blocks: message.blocks } : {}),
  };
}

/** Creates the delivery helpers. */
export function createDeliveries(context: DeliveryContext) {
  const { socket, store, identity } = context;

  const send = async (envelope: Parameters<SocketModeServer['deliver']>[0]) => {
    await context.waitForOpenConnection();
    return socket.deliver(envelope);
  };

  const eventEnvelope = (event: Record<string, unknown>, options: DeliveryOptions) => {
    const eventId = options.eventId ?? newSlackId('Ev');
    const payload = buildEventCallback(event, identity, { eventId, eventTime: Math.floor(Date.now() / 1000) });
    return { eventId, envelope: buildEnvelope('events_api', payload, options) };
  };

  const newResponseUrl = () => {
    const id = randomUUID();
    context.responseUrls.set(id, 0);
    return `${context.baseUrl()}/response/${id}`;
  };

  const deliverEvent = async (event: Record<string, unknown>, options: DeliveryOptions = {}): Promise<EventDeliveryResult> => {
    const { eventId, envelope } = eventEnvelope(event, options);
    return { ...toResult(await send(envelope)), eventId };
  };

  const storeUserMessage = (input: { userId: string; channelId: string; text: string; ts?: string; threadTs?: string; files?: Record<string, unknown>[] }) => {
    const stored = store.add({
      channel: input.channelId,
      text: input.text,
      user: input.userId,
      ...(input.ts ? { ts: input.ts } : {}),
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...(input.files ? { files: input.files } : {}),
    });
    const parentUserId = input.threadTs ? store.find(input.channelId, input.threadTs)?.user : undefined;
    return {
      stored,
      fields: {
        userId: input.userId,
        channelId: input.channelId,
        text: input.text,
        ts: stored.ts,
        teamId: identity.teamId,
        ...(input.threadTs ? { threadTs: input.threadTs } : {}),
        ...(parentUserId ? { parentUserId } : {}),
      },
    };
  };

  return {
    deliverEvent,
    /** Sends an envelope as given (a fault test's malformed one); resolves on the bot's ack. */
    async deliverRawEnvelope(envelope: Parameters<SocketModeServer['deliver']>[0]): Promise<DeliveryResult> {
      return toResult(await send(envelope));
    },
    /** Sends the very same envelope twice, as Slack sometimes does; resolves with both acks. */
    async deliverDuplicate(event: Record<string, unknown>, options: DeliveryOptions = {}): Promise<[EventDeliveryResult, EventDeliveryResult]> {
      const { eventId, envelope } = eventEnvelope(event, options);
      await context.waitForOpenConnection();
      const [first, second] = await Promise.all([socket.deliver(envelope), socket.deliver(envelope)]);
      return [
        { ...toResult(first), eventId },
        { ...toResult(second), eventId },
      ];
    },
    /** A person shares a file; the object goes on a message's `files` (served at its private URL to the bot token only). */
    shareFile(input: { name: string; mimetype: string; content: string | Buffer; redirectTo?: string }): Record<string, unknown> {
      const file: SharedFile = {
        id: newSlackId('F'),
        name: input.name,
        mimetype: input.mimetype,
        bytes: Buffer.from(input.content),
        ...(input.redirectTo ? { redirectTo: input.redirectTo } : {}),
      };
      store.sharedFiles.set(file.id, file);
      return sharedFileJson(file, identity, context.baseUrl());
    },
    /** A person's message that is stored (conversations.replies returns it) but delivered to no app: the bot never heard it. */
    postUnheard(input: { userId: string; channelId: string; text: string; threadTs?: string; files?: Record<string, unknown>[] }): StoredMessage {
      return storeUserMessage(input).stored;
    },
    /** Another app's bot posts (a CI bot): stored with its own bot id, not delivered. */
    postOtherBot(input: { botId: string; username: string; channelId: string; text: string; threadTs?: string }): StoredMessage {
      return store.add({
        channel: input.channelId,
        text: input.text,
        user: `U${input.botId}`,
        bot_id: input.botId,
        username: input.username,
        ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      });
    },
    /** A person writes to the bot in their DM (`message.im`: a `message` event with `channel_type: im`). */
    async directMessage(input: {
      userId: string;
      channelId: string;
      text: string;
      threadTs?: string;
      files?: Record<string, unknown>[];
    }): Promise<UserMessageDelivery> {
      const { stored, fields } = storeUserMessage(input);
      const event = { ...buildUserMessageEvent({ ...fields, channelType: 'im' }), ...(input.files ? { files: input.files, subtype: 'file_share' } : {}) };
      return { ...(await deliverEvent(event)), ts: stored.ts, event };
    },
    async mention(input: MentionInput): Promise<UserMessageDelivery> {
      const prefix = `<@${identity.botUserId}>`;
      const text = input.text.startsWith(prefix) ? input.text : `${prefix} ${input.text}`;
      const { stored, fields } = storeUserMessage({ ...input, text });
      const event = { ...buildAppMentionEvent(fields), ...(input.files ? { files: input.files } : {}) };
      return { ...(await deliverEvent(event)), ts: stored.ts, ...(input.threadTs ? { threadTs: input.threadTs } : {}), event };
    },
    async threadMessage(input: ThreadMessageInput): Promise<UserMessageDelivery> {
      const { stored, fields } = storeUserMessage(input);
      const event = { ...buildUserMessageEvent(fields), ...(input.files ? { files: input.files, subtype: 'file_share' } : {}) };
      return { ...(await deliverEvent(event)), ts: stored.ts, threadTs: input.threadTs, event };
    },
    async deliverSlashCommand(input: SlashCommandInput): Promise<SlashCommandDelivery> {
      const responseUrl = newResponseUrl();
      const triggerId = newTriggerId();
      const payload = buildSlashCommandPayload(input, identity, { responseUrl, triggerId });
      const ack = await send(buildEnvelope('slash_commands', payload));
      return { ...toResult(ack), responseUrl, triggerId, payload };
    },
    async deliverBlockAction(input: BlockActionInput): Promise<BlockActionDelivery> {
      const stored = store.find(input.channelId, input.messageTs);
      const button = findButton(stored?.blocks, input.actionId);
      // A parent carries thread_ts = its own ts; only replies report a thread in the container.
      const threadTs = input.threadTs ?? (stored?.thread_ts !== stored?.ts ? stored?.thread_ts : undefined);
      const responseUrl = newResponseUrl();
      const triggerId = newTriggerId();
      const actionTs = store.nextTs();
      const payload = buildBlockActionsPayload(
        {
          ...input,
          ...((input.blockId ?? button.blockId) ? { blockId: input.blockId ?? button.blockId } : {}),
          ...((input.actionText ?? button.label) ? { actionText: input.actionText ?? button.label } : {}),
          ...(threadTs ? { threadTs } : {}),
        },
        identity,
        { message: messageForPayload(stored, input.messageTs, identity.teamId), responseUrl, triggerId, actionTs },
      );
      const ack = await send(buildEnvelope('interactive', payload));
      return { ...toResult(ack), responseUrl, triggerId, actionTs, payload };
    },
  };
}

/** The delivery helpers' type, as exposed by the emulator. */
export type Deliveries = ReturnType<typeof createDeliveries>;
