/**
 * What a Discord channel is: `GET /channels/{id}` (https://discord.com/developers/docs/resources/channel#get-channel).
 * A DM (type 1) has one person; a guild channel is private when its @everyone overwrite (the role
 * whose id is the guild's) denies VIEW_CHANNEL. Member counts are not given for text channels, so
 * they stay unknown (a shared channel for the approval rules). Kept for five minutes per channel.
 */
import { Routes, type REST } from 'discord.js';
import type { ChannelInfo } from '../../commands/chat-surface.js';

const CHANNEL_INFO_TTL_MS = 5 * 60_000;
const DM_CHANNEL = 1;
const GROUP_DM_CHANNEL = 3;
const VIEW_CHANNEL = 1n << 10n;

interface DiscordChannel {
  type?: number;
  name?: string;
  guild_id?: string;
  recipients?: unknown[];
  permission_overwrites?: { id: string; type: number; deny?: string }[];
}

export function describeDiscordChannel(channel: DiscordChannel): ChannelInfo {
  if (channel.type === DM_CHANNEL) return { kind: 'dm', members: 2 };
  if (channel.type === GROUP_DM_CHANNEL) return { kind: 'private', members: (channel.recipients?.length ?? 1) + 1 };
  const everyone = channel.permission_overwrites?.find((overwrite) => overwrite.id === channel.guild_id && overwrite.type === 0);
  const hidden = everyone?.deny !== undefined && (BigInt(everyone.deny) & VIEW_CHANNEL) !== 0n;
  return { kind: hidden ? 'private' : 'public', ...(channel.name ? { name: channel.name } : {}) };
}

export function createDiscordChannelInfo(rest: () => REST, now: () => number = Date.now) {
  const cache = new Map<string, { info: ChannelInfo; until: number }>();
  return async function channelInfo(channelId: string): Promise<ChannelInfo> {
    const cached = cache.get(channelId);
    if (cached && cached.until > now()) return cached.info;
    const info = describeDiscordChannel((await rest().get(Routes.channel(channelId))) as DiscordChannel);
    cache.set(channelId, { info, until: now() + CHANNEL_INFO_TTL_MS });
    return info;
  };
}
