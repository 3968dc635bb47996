/**
 * The emulated Discord world: one guild, its channels and threads, users, messages with
 * their edit history, webhooks, application commands and live interactions.
 * Plain data; the real-shaped payloads are built in `payloads.ts`.
 */
import type { APIMessage } from 'discord-api-types/v10';

/** A user known to the emulator. */
export interface UserInfo {
  id: string;
  username: string;
  bot: boolean;
}

/** A text channel, a public thread or a DM channel. */
export interface ChannelInfo {
  id: string;
  kind: 'text' | 'thread' | 'dm';
  name: string;
  /** For threads: the channel the thread lives in. */
  parentId?: string;
  /** For threads: who created it. */
  ownerId?: string;
  /** For DMs: the other user. */
  recipientId?: string;
  autoArchiveMinutes: number;
  position: number;
  lastMessageId: string | null;
  messageCount: number;
  createdAt: number;
}

/** One version of a message's editable fields. */
export interface MessageRevision {
  content: string;
  embeds: unknown[];
  components: unknown[];
  at: number;
}

/** A file uploaded with a message (multipart `files[n]`). */
export interface RecordedFile {
  /** The multipart field name, e.g. `files[0]`. */
  field: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
  /** The alt text given in `attachments[n].description`. */
  description?: string;
}

/** A stored message: its current real-shaped payload and every revision. */
export interface StoredMessage {
  payload: APIMessage;
  /** Oldest first; the last one is the current state. */
  revisions: MessageRevision[];
  files: RecordedFile[];
  deleted: boolean;
  /** For webhook messages: the `avatar_url` given (Discord turns it into an avatar hash). */
  avatarUrl?: string;
}

/** A channel webhook. */
export interface WebhookInfo {
  id: string;
  token: string;
  channelId: string;
  name: string;
  /** The avatar hash; the image itself in `avatarImage` (created with `avatar: data:image/png;base64,…`). */
  avatar: string | null;
  avatarImage?: { contentType: string; bytes: Buffer };
  createdBy: string;
  /** Another application's webhook (a test fills a channel); absent: this application's. */
  applicationId?: string;
}

/** A registered application command as stored (the real-shaped object). */
export type StoredCommand = Record<string, unknown> & { id: string; name: string; type: number };

/** An interaction dispatched to the bot and not yet expired. */
export interface InteractionInfo {
  id: string;
  token: string;
  /** 2 application command, 3 message component. */
  type: 2 | 3;
  channelId: string;
  userId: string;
  dispatchedAt: number;
  /** For components: the message carrying the clicked button. */
  componentMessageId?: string;
  /** The message `@original` refers to once the interaction was answered. */
  originalMessageId?: string;
  response?: { type: number; ms: number };
  resolveResponded: (response: { type: number; ms: number }) => void;
}

/** The emulator's mutable world. */
export interface EmulatorState {
  readonly applicationId: string;
  readonly botUserId: string;
  readonly guildId: string;
  readonly guildName: string;
  readonly ownerId: string;
  readonly createdAt: number;
  readonly users: Map<string, UserInfo>;
  readonly channels: Map<string, ChannelInfo>;
  readonly messages: Map<string, StoredMessage>;
  readonly webhooks: Map<string, WebhookInfo>;
  /** Keyed by `global` or a guild id. */
  readonly commands: Map<string, StoredCommand[]>;
  /** Keyed by interaction token. */
  readonly interactions: Map<string, InteractionInfo>;
  /** Attachment bytes by attachment id, served at the attachment's URL (`/attachments/…`). */
  readonly attachments: Map<string, RecordedFile>;
  nextId(): string;
  /** The user, created on first sight with a generated name. */
  user(id: string): UserInfo;
  /** Messages of one channel (or all), in creation order, deleted ones included. */
  messagesIn(channelId?: string): StoredMessage[];
}

/** Settings the state is created from. */
export interface StateSettings {
  applicationId: string;
  botUserId: string;
  guildId: string;
  channels: { id: string; name: string }[];
  users: { id: string; username: string }[];
}

/** Discord's epoch (2015-01-01), the base of snowflake timestamps. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** Creates the world: the guild's owner, the bot, the listed users and text channels. */
export function createEmulatorState(settings: StateSettings): EmulatorState {
  let increment = 0n;
  const nextId = (): string => {
    increment = (increment + 1n) & 0xfffn;
    return (((BigInt(Date.now()) - DISCORD_EPOCH_MS) << 22n) | (1n << 17n) | increment).toString();
  };
  const createdAt = Date.now();
  const users = new Map<string, UserInfo>();
  users.set(settings.botUserId, { id: settings.botUserId, username: 'TSUKA', bot: true });
  for (const user of settings.users) users.set(user.id, { id: user.id, username: user.username, bot: false });
  const ownerId = settings.users[0]?.id ?? nextId();
  if (!users.has(ownerId)) users.set(ownerId, { id: ownerId, username: 'owner', bot: false });

  const channels = new Map<string, ChannelInfo>();
  settings.channels.forEach((channel, position) => {
    channels.set(channel.id, {
      id: channel.id,
      kind: 'text',
      name: channel.name,
      autoArchiveMinutes: 1440,
      position,
      lastMessageId: null,
      messageCount: 0,
      createdAt,
    });
  });

  const messages = new Map<string, StoredMessage>();
  return {
    applicationId: settings.applicationId,
    botUserId: settings.botUserId,
    guildId: settings.guildId,
    guildName: 'TSUKA test guild',
    ownerId,
    createdAt,
    users,
    channels,
    messages,
    webhooks: new Map(),
    commands: new Map(),
    interactions: new Map(),
    attachments: new Map(),
    nextId,
    user(id) {
      let user = users.get(id);
      if (!user) {
        user = { id, username: `user${id.slice(-4)}`, bot: false };
        users.set(id, user);
      }
      return user;
    },
    messagesIn(channelId) {
      const all = [...messages.values()];
      return channelId === undefined ? all : all.filter((message) => message.payload.channel_id === channelId);
    },
  };
}
