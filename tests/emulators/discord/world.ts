/**
 * Changes to the emulated world that Discord announces on the gateway: messages created,
 * edited and deleted (with their revisions), threads started. Shared by the REST routes and
 * the test-facing helpers, so both produce the same payloads and dispatches.
 */
import { ChannelType, MessageFlags, type APIAttachment, type APIEmbed, type APIMessage } from 'discord-api-types/v10';
import type { Gateway } from './gateway.js';
import { asRecord, arrayField, invalidFormBody, DiscordApiError, stringField } from './http-kit.js';
import { memberPayload, messagePayload, textChannelPayload, threadPayload, type MessageFields } from './payloads.js';
import type { Recorder } from './records.js';
import type { ChannelInfo, EmulatorState, RecordedFile, StoredMessage } from './state.js';

/** Discord's limits on what a message may carry. */
export const DISCORD_MAX_CONTENT_LENGTH = 2000;
export const DISCORD_MAX_EMBEDS = 10;
export const DISCORD_MAX_ACTION_ROWS = 5;
export const DISCORD_MAX_BUTTONS_PER_ROW = 5;
export const DISCORD_MAX_CUSTOM_ID_LENGTH = 100;
export const DISCORD_MAX_THREAD_NAME_LENGTH = 100;

/** The editable parts of a message, as read from a request body. */
export interface MessageContent {
  content?: string;
  embeds?: APIEmbed[];
  components?: unknown[];
  flags?: number;
  files: RecordedFile[];
}

/** Reads and validates a message body the way Discord does (length, embeds, component rows). */
export function readMessageContent(body: Record<string, unknown>, files: RecordedFile[], creating: boolean): MessageContent {
  const content = stringField(body, 'content');
  const embeds = arrayField(body, 'embeds') as APIEmbed[] | undefined;
  const components = arrayField(body, 'components');
  const flags = typeof body['flags'] === 'number' ? body['flags'] : undefined;
  if (content !== undefined && content.length > DISCORD_MAX_CONTENT_LENGTH) {
    throw invalidFormBody('content', 'BASE_TYPE_MAX_LENGTH', `Must be ${DISCORD_MAX_CONTENT_LENGTH} or fewer in length.`);
  }
  if (embeds !== undefined && embeds.length > DISCORD_MAX_EMBEDS) {
    throw invalidFormBody('embeds', 'BASE_TYPE_MAX_LENGTH', `Must be ${DISCORD_MAX_EMBEDS} or fewer in length.`);
  }
  if (components !== undefined) validateComponents(components);
  const empty = !content && (embeds ?? []).length === 0 && (components ?? []).length === 0 && files.length === 0;
  if (creating && empty && body['sticker_ids'] === undefined && body['poll'] === undefined) {
    throw new DiscordApiError(400, 50006, 'Cannot send an empty message');
  }
  // `attachments: [{ id: n, description }]` describes `files[n]` (its alt text).
  const described = (arrayField(body, 'attachments') ?? []).map(asRecord);
  const withDescriptions = files.map((file, index) => {
    const description = stringField(described.find((entry) => String(entry['id']) === String(index)) ?? {}, 'description');
    return description === undefined ? file : { ...file, description };
  });
  return { content, embeds, components, flags, files: withDescriptions };
}

function validateComponents(rows: unknown[]): void {
  if (rows.length > DISCORD_MAX_ACTION_ROWS) {
    throw invalidFormBody('components', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_ACTION_ROWS} in length.`);
  }
  const seen = new Set<string>();
  for (const row of rows) {
    const children = arrayField(asRecord(row), 'components') ?? [];
    // A select fills its row alone, with 1 to 25 options.
    const selects = children.filter((child) => asRecord(child)['type'] === 3);
    if (selects.length > 0 && children.length > 1)
      throw invalidFormBody('components', 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'A select menu must be alone in its row');
    for (const select of selects) {
      const options = arrayField(asRecord(select), 'options') ?? [];
      if (options.length < 1 || options.length > 25) throw invalidFormBody('components', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 25 in length.');
    }
    if (children.length > DISCORD_MAX_BUTTONS_PER_ROW) {
      throw invalidFormBody('components', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_BUTTONS_PER_ROW} in length.`);
    }
    for (const child of children) {
      const customId = stringField(asRecord(child), 'custom_id');
      if (customId === undefined) continue;
      if (customId.length < 1 || customId.length > DISCORD_MAX_CUSTOM_ID_LENGTH) {
        throw invalidFormBody('components', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_CUSTOM_ID_LENGTH} in length.`);
      }
      if (seen.has(customId)) throw invalidFormBody('components', 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
      seen.add(customId);
    }
  }
}

/** A new message: who, where, and what it shows. */
export interface NewMessage extends Omit<MessageFields, 'id' | 'content' | 'attachments'> {
  content?: string;
  files?: RecordedFile[];
  avatarUrl?: string;
  /** Stored without a MESSAGE_CREATE dispatch. */
  silent?: boolean;
}

/** The world-changing operations. */
export interface World {
  createMessage(message: NewMessage): StoredMessage;
  editMessage(stored: StoredMessage, changes: Omit<MessageContent, 'files'> & { files?: RecordedFile[] }): StoredMessage;
  deleteMessage(stored: StoredMessage): void;
  /** Starts a public thread; with `id` equal to a message id it is that message's thread. */
  createThread(input: { parentId: string; id: string; name: string; ownerId: string; autoArchiveMinutes?: number }): ChannelInfo;
  /** Adds a text channel to the guild and announces it (CHANNEL_CREATE), as when someone creates one. */
  createChannel(name?: string): ChannelInfo;
  /** The message in `channelId` (or anywhere when omitted), unless deleted. */
  findMessage(messageId: string, channelId?: string): StoredMessage | undefined;
}

/** Creates the operations over `state`, announcing each change on `gateway`. */
export function createWorld(state: EmulatorState, gateway: Gateway, recorder: Recorder, baseUrl: () => string): World {
  const attachmentsFor = (channelId: string, files: RecordedFile[]): APIAttachment[] =>
    files.map((file) => {
      const id = state.nextId();
      const url = `${baseUrl()}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
      state.attachments.set(id, file);
      return {
        id,
        filename: file.filename,
        size: file.bytes.length,
        url,
        proxy_url: url,
        content_type: file.contentType,
        ...(file.description !== undefined ? { description: file.description } : {}),
      };
    });

  const gatewayMessage = (payload: APIMessage): Record<string, unknown> => {
    const channel = state.channels.get(payload.channel_id);
    // Discord adds `channel_type` to message dispatches; discord.js needs it to build an uncached DM channel.
    if (!channel || channel.kind === 'dm') return { ...payload, ...(channel ? { channel_type: ChannelType.DM } : {}) };
    const extra: Record<string, unknown> = { guild_id: state.guildId };
    if (payload.webhook_id === undefined) {
      const { user: _user, ...member } = memberPayload(state, state.user(payload.author.id));
      extra['member'] = member;
    }
    return { ...payload, ...extra };
  };

  const world: World = {
    createMessage(input) {
      const channel = state.channels.get(input.channelId);
      if (!channel) throw new DiscordApiError(404, 10003, 'Unknown Channel');
      const files = input.files ?? [];
      const id = state.nextId();
      const { silent, ...fields } = input;
      const payload = messagePayload(state, {
        ...fields,
        id,
        content: input.content ?? '',
        attachments: attachmentsFor(input.channelId, files),
      });
      const stored: StoredMessage = {
        payload,
        revisions: [{ content: payload.content, embeds: payload.embeds, components: payload.components ?? [], at: Date.now() }],
        files: [...files],
        deleted: false,
      };
      if (input.avatarUrl !== undefined) stored.avatarUrl = input.avatarUrl;
      state.messages.set(id, stored);
      channel.lastMessageId = id;
      channel.messageCount += 1;
      // Ephemeral messages exist only for their recipient; Discord sends no MESSAGE_CREATE for them.
      if (!silent && ((payload.flags ?? 0) & MessageFlags.Ephemeral) === 0) gateway.dispatch('MESSAGE_CREATE', gatewayMessage(payload));
      recorder.changed();
      return stored;
    },
    editMessage(stored, changes) {
      const payload = stored.payload;
      if (changes.content !== undefined) payload.content = changes.content;
      if (changes.embeds !== undefined) payload.embeds = changes.embeds;
      if (changes.components !== undefined) payload.components = changes.components as APIMessage['components'];
      if (changes.flags !== undefined) payload.flags = changes.flags;
      if (changes.files !== undefined && changes.files.length > 0) {
        payload.attachments = [...payload.attachments, ...attachmentsFor(payload.channel_id, changes.files)];
        stored.files.push(...changes.files);
      }
      payload.edited_timestamp = new Date().toISOString();
      stored.revisions.push({ content: payload.content, embeds: payload.embeds, components: payload.components ?? [], at: Date.now() });
      if (((payload.flags ?? 0) & MessageFlags.Ephemeral) === 0) gateway.dispatch('MESSAGE_UPDATE', gatewayMessage(payload));
      recorder.changed();
      return stored;
    },
    deleteMessage(stored) {
      stored.deleted = true;
      const channel = state.channels.get(stored.payload.channel_id);
      const data: Record<string, unknown> = { id: stored.payload.id, channel_id: stored.payload.channel_id };
      if (channel?.kind !== 'dm') data['guild_id'] = state.guildId;
      gateway.dispatch('MESSAGE_DELETE', data);
      recorder.changed();
    },
    createThread(input) {
      if (input.name.length < 1 || input.name.length > DISCORD_MAX_THREAD_NAME_LENGTH) {
        throw invalidFormBody('name', 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${DISCORD_MAX_THREAD_NAME_LENGTH} in length.`);
      }
      if (state.channels.has(input.id)) throw new DiscordApiError(400, 160004, 'A thread has already been created for this message');
      const thread: ChannelInfo = {
        id: input.id,
        kind: 'thread',
        name: input.name,
        parentId: input.parentId,
        ownerId: input.ownerId,
        autoArchiveMinutes: input.autoArchiveMinutes ?? 1440,
        position: 0,
        lastMessageId: null,
        messageCount: 0,
        createdAt: Date.now(),
      };
      state.channels.set(thread.id, thread);
      const starter = state.messages.get(input.id);
      if (starter) starter.payload.thread = threadPayload(state, thread);
      gateway.dispatch('THREAD_CREATE', { ...threadPayload(state, thread), newly_created: true });
      recorder.changed();
      return thread;
    },
    createChannel(name) {
      const id = state.nextId();
      const channel: ChannelInfo = {
        id,
        kind: 'text',
        name: name ?? `channel-${id.slice(-6)}`,
        autoArchiveMinutes: 1440,
        position: [...state.channels.values()].filter((candidate) => candidate.kind === 'text').length,
        lastMessageId: null,
        messageCount: 0,
        createdAt: Date.now(),
      };
      state.channels.set(id, channel);
      gateway.dispatch('CHANNEL_CREATE', textChannelPayload(state, channel));
      recorder.changed();
      return channel;
    },
    findMessage(messageId, channelId) {
      const stored = state.messages.get(messageId);
      if (!stored || stored.deleted) return undefined;
      if (channelId !== undefined && stored.payload.channel_id !== channelId) return undefined;
      return stored;
    },
  };
  return world;
}
