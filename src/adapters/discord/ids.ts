/**
 * Discord's opaque ids. Channel `discord:G/P` (guild, text channel); thread `discord:G/P/T` (the
 * thread channel under its parent, kept because webhooks belong to the parent); message
 * `discord:G/P/C/M` where C is the channel holding it (P itself or a thread), with a fifth
 * segment `W` when it was posted through webhook W (edits go through that webhook). A thread
 * started from message M has id M, so `threadFromMessage` needs no API call. User `discord:U`,
 * the form `TSUKA_ADMINS` uses. Only this adapter decodes them.
 */
import type { ChannelRef, MessageRef, ThreadRef, UserRef } from '../../commands/chat-surface.js';

const PREFIX = 'discord:';
/** The "guild" of direct messages (Discord's own `@me`): a DM channel is `discord:@me/D`, its conversation `discord:@me/D/D`. */
export const DIRECT_GUILD = '@me';

/** Where a decoded message lives. */
export interface DiscordMessageAddress {
  guild: string;
  /** The text channel (the thread's parent when `channel` is a thread). */
  parent: string;
  /** The channel holding the message: `parent` or a thread id. */
  channel: string;
  message: string;
  /** Set when the message was posted through this webhook. */
  webhook?: string;
}

export const channelRef = (guild: string, channel: string): ChannelRef => `${PREFIX}${guild}/${channel}`;
export const threadRef = (guild: string, parent: string, thread: string): ThreadRef => `${PREFIX}${guild}/${parent}/${thread}`;
export const userRef = (user: string): UserRef => `${PREFIX}${user}`;

export function messageRef(address: DiscordMessageAddress): MessageRef {
  const base = `${PREFIX}${address.guild}/${address.parent}/${address.channel}/${address.message}`;
  return address.webhook ? `${base}/${address.webhook}` : base;
}

export function decodeChannel(ref: ChannelRef): { guild: string; channel: string } {
  const [guild, channel, ...rest] = segments(ref);
  if (!guild || !channel || rest.length > 0) throw new Error(`not a Discord channel id: ${ref}`);
  return { guild, channel };
}

/** Decodes a thread ref into guild, parent channel and thread channel. */
export function decodeThread(ref: ThreadRef): { guild: string; parent: string; thread: string } {
  const [guild, parent, thread, ...rest] = segments(ref);
  if (!guild || !parent || !thread || rest.length > 0) throw new Error(`not a Discord thread id: ${ref}`);
  return { guild, parent, thread };
}

export function decodeMessage(ref: MessageRef): DiscordMessageAddress {
  const [guild, parent, channel, message, webhook, ...rest] = segments(ref);
  if (!guild || !parent || !channel || !message || rest.length > 0) throw new Error(`not a Discord message id: ${ref}`);
  return webhook ? { guild, parent, channel, message, webhook } : { guild, parent, channel, message };
}

export function decodeUser(ref: UserRef): string {
  const id = ref.startsWith(PREFIX) ? ref.slice(PREFIX.length) : '';
  if (!/^\d+$/.test(id)) throw new Error(`not a Discord user id: ${ref}`);
  return id;
}

/** The thread a channel message starts (Discord gives the thread the message's id). */
export function threadFromMessage(address: DiscordMessageAddress): ThreadRef {
  return threadRef(address.guild, address.parent, address.message);
}

function segments(ref: string): string[] {
  if (!ref.startsWith(PREFIX)) throw new Error(`not a Discord id: ${ref}`);
  return ref.slice(PREFIX.length).split('/');
}
