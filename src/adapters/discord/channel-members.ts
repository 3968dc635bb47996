/**
 * Whether a user may read a Discord channel now: a DM's recipient; in a guild, a current member
 * (`GET /guilds/{guild}/members/{user}`, 404 Unknown Member once they left or were removed) whom the
 * channel's permission overwrites leave VIEW_CHANNEL — the @everyone overwrite, then their roles'
 * (deny, then allow), then their own (https://discord.com/developers/docs/topics/permissions#permission-overwrites).
 * A thread is read through its parent. The guild-wide base permissions of roles are not read: a
 * role without VIEW_CHANNEL guild-wide still counts as seeing channels that do not deny it.
 * Never cached: asked at the moment a schedule fires.
 */
import { Routes, type REST } from 'discord.js';
import { discordErrorCode } from './webhooks.js';

const VIEW_CHANNEL = 1n << 10n;
const DM_CHANNEL = 1;
const GROUP_DM_CHANNEL = 3;
const THREAD_TYPES = new Set([10, 11, 12]);
const UNKNOWN_MEMBER = 10007;

interface Overwrite {
  id: string;
  type: number;
  allow?: string;
  deny?: string;
}

interface DiscordChannel {
  type?: number;
  guild_id?: string;
  parent_id?: string | null;
  recipients?: { id: string }[];
  permission_overwrites?: Overwrite[];
}

/** VIEW_CHANNEL after the channel's overwrites for a member with `roles`. */
export function viewAllowed(channel: DiscordChannel, user: string, roles: readonly string[]): boolean {
  let view = true;
  const overwrites = channel.permission_overwrites ?? [];
  const apply = (overwrite: Overwrite | undefined) => {
    if (!overwrite) return;
    if ((BigInt(overwrite.deny ?? '0') & VIEW_CHANNEL) !== 0n) view = false;
    if ((BigInt(overwrite.allow ?? '0') & VIEW_CHANNEL) !== 0n) view = true;
  };
  apply(overwrites.find((overwrite) => overwrite.type === 0 && overwrite.id === channel.guild_id));
  const roleOverwrites = overwrites.filter((overwrite) => overwrite.type === 0 && overwrite.id !== channel.guild_id && roles.includes(overwrite.id));
  if (roleOverwrites.some((overwrite) => (BigInt(overwrite.deny ?? '0') & VIEW_CHANNEL) !== 0n)) view = false;
  if (roleOverwrites.some((overwrite) => (BigInt(overwrite.allow ?? '0') & VIEW_CHANNEL) !== 0n)) view = true;
  apply(overwrites.find((overwrite) => overwrite.type === 1 && overwrite.id === user));
  return view;
}

export function createDiscordMembership(rest: () => REST) {
  return async function isMember(channelId: string, userId: string): Promise<boolean> {
    let channel = (await rest().get(Routes.channel(channelId))) as DiscordChannel;
    if (channel.type === DM_CHANNEL || channel.type === GROUP_DM_CHANNEL) return (channel.recipients ?? []).some((recipient) => recipient.id === userId);
    if (THREAD_TYPES.has(channel.type ?? -1) && channel.parent_id) channel = (await rest().get(Routes.channel(channel.parent_id))) as DiscordChannel;
    if (!channel.guild_id) return false;
    let member: { roles?: string[] };
    try {
      member = (await rest().get(Routes.guildMember(channel.guild_id, userId))) as { roles?: string[] };
    } catch (error) {
      if (discordErrorCode(error) === UNKNOWN_MEMBER) return false;
      throw error;
    }
    return viewAllowed(channel, userId, member.roles ?? []);
  };
}
