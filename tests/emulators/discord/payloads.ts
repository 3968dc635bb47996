/**
 * Real-shaped Discord API v10 objects, typed with discord-api-types so that a missing or
 * misnamed field fails the typecheck: users, members, channels, the guild of GUILD_CREATE,
 * READY, messages, webhooks and the application.
 * https://discord.com/developers/docs/resources/message#message-object
 */
import {
  ChannelType,
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildSystemChannelFlags,
  GuildVerificationLevel,
  Locale,
  MessageType,
  PermissionFlagsBits,
  type ThreadAutoArchiveDuration,
  WebhookType,
  type APIPublicThreadChannel,
  type APITextChannel,
  type ApplicationFlags,
  type ChannelFlags,
  type GuildMemberFlags,
  type RoleFlags,
  type UserFlags,
  type APIChannel,
  type APIEmbed,
  type APIGuildMember,
  type APIMessage,
  type APIRole,
  type APIUser,
  type APIWebhook,
  type GatewayGuildCreateDispatchData,
  type GatewayReadyDispatchData,
} from 'discord-api-types/v10';
import type { ChannelInfo, EmulatorState, UserInfo } from './state.js';

/** Permissions of a member without roles: read, write, react, use commands. */
export const EVERYONE_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.CreatePublicThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseApplicationCommands;

/** The bot's managed role adds thread management and, when allowed, Manage Webhooks. */
export function botPermissions(manageWebhooks: boolean): bigint {
  const base = EVERYONE_PERMISSIONS | PermissionFlagsBits.ManageThreads | PermissionFlagsBits.ManageMessages;
  return manageWebhooks ? base | PermissionFlagsBits.ManageWebhooks : base;
}

/** The id of the bot's managed role. */
export function botRoleId(state: EmulatorState): string {
  return `${state.guildId.slice(0, -1)}9`;
}

const iso = (at: number): string => new Date(at).toISOString();
const NO_USER_FLAGS = 0 as UserFlags;
const NO_CHANNEL_FLAGS = 0 as ChannelFlags;
const NO_APPLICATION_FLAGS = 0 as ApplicationFlags;

export function userPayload(user: UserInfo): APIUser {
  const payload: APIUser = {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.bot ? null : user.username,
    avatar: null,
    public_flags: NO_USER_FLAGS,
  };
  if (user.bot) payload.bot = true;
  return payload;
}

export function memberPayload(state: EmulatorState, user: UserInfo): APIGuildMember {
  return {
    user: userPayload(user),
    nick: null,
    avatar: null,
    banner: null,
    roles: user.id === state.botUserId ? [botRoleId(state)] : [],
    joined_at: iso(state.createdAt),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0 as GuildMemberFlags,
    pending: false,
    communication_disabled_until: null,
  };
}

export function channelPayload(state: EmulatorState, channel: ChannelInfo): APIChannel {
  if (channel.kind === 'dm') {
    return {
      id: channel.id,
      type: ChannelType.DM,
      name: null,
      last_message_id: channel.lastMessageId,
      recipients: [userPayload(state.user(channel.recipientId ?? ''))],
      flags: NO_CHANNEL_FLAGS,
    };
  }
  return channel.kind === 'thread' ? threadPayload(state, channel) : textChannelPayload(state, channel);
}

export function threadPayload(state: EmulatorState, channel: ChannelInfo): APIPublicThreadChannel {
  return {
    id: channel.id,
    type: ChannelType.PublicThread,
    guild_id: state.guildId,
    parent_id: channel.parentId ?? '',
    owner_id: channel.ownerId ?? state.botUserId,
    name: channel.name,
    last_message_id: channel.lastMessageId,
    rate_limit_per_user: 0,
    message_count: channel.messageCount,
    member_count: 1,
    total_message_sent: channel.messageCount,
    flags: NO_CHANNEL_FLAGS,
    thread_metadata: {
      archived: false,
      auto_archive_duration: channel.autoArchiveMinutes as ThreadAutoArchiveDuration,
      archive_timestamp: iso(channel.createdAt),
      locked: false,
      create_timestamp: iso(channel.createdAt),
    },
  };
}

export function textChannelPayload(state: EmulatorState, channel: ChannelInfo): APITextChannel {
  return {
    id: channel.id,
    type: ChannelType.GuildText,
    guild_id: state.guildId,
    name: channel.name,
    position: channel.position,
    permission_overwrites: [],
    topic: null,
    nsfw: false,
    last_message_id: channel.lastMessageId,
    rate_limit_per_user: 0,
    parent_id: null,
    flags: NO_CHANNEL_FLAGS,
  };
}

function rolePayload(id: string, name: string, permissions: bigint, position: number, managed: boolean): APIRole {
  return {
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    position,
    permissions: permissions.toString(),
    managed,
    mentionable: false,
    flags: 0 as RoleFlags,
  };
}

/** GUILD_CREATE: the guild with its roles, channels, active threads and members. */
export function guildCreatePayload(state: EmulatorState, manageWebhooks: boolean): GatewayGuildCreateDispatchData {
  const channels = [...state.channels.values()];
  const members = [...state.users.values()].map((user) => memberPayload(state, user));
  return {
    id: state.guildId,
    name: state.guildName,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: state.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: GuildVerificationLevel.None,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.Disabled,
    roles: [
      rolePayload(state.guildId, '@everyone', EVERYONE_PERMISSIONS, 0, false),
      { ...rolePayload(botRoleId(state), 'TSUKA', botPermissions(manageWebhooks), 1, true), tags: { bot_id: state.botUserId } },
    ],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: GuildMFALevel.None,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: GuildSystemChannelFlags.SuppressJoinNotifications,
    rules_channel_id: null,
    vanity_url_code: null,
    premium_tier: GuildPremiumTier.None,
    premium_subscription_count: 0,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: null,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    hub_type: null,
    safety_alerts_channel_id: null,
    incidents_data: null,
    joined_at: iso(state.createdAt),
    large: false,
    unavailable: false,
    member_count: members.length,
    voice_states: [],
    members,
    channels: channels.filter((channel) => channel.kind === 'text').map((channel) => textChannelPayload(state, channel)),
    threads: channels.filter((channel) => channel.kind === 'thread').map((channel) => threadPayload(state, channel)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/** READY: the bot user, its one guild marked unavailable until GUILD_CREATE, the session. */
export function readyPayload(state: EmulatorState, sessionId: string, resumeGatewayUrl: string): GatewayReadyDispatchData {
  return {
    v: 10,
    user: { ...userPayload(state.user(state.botUserId)), verified: true, mfa_enabled: false, flags: NO_USER_FLAGS },
    guilds: [{ id: state.guildId, unavailable: true }],
    session_id: sessionId,
    resume_gateway_url: resumeGatewayUrl,
    shard: [0, 1],
    application: { id: state.applicationId, flags: NO_APPLICATION_FLAGS, flags_new: '0' },
  };
}

/** What varies between messages; everything else is filled in. */
export interface MessageFields {
  id: string;
  channelId: string;
  author: UserInfo;
  content: string;
  embeds?: APIEmbed[];
  components?: unknown[];
  attachments?: APIMessage['attachments'];
  flags?: number;
  type?: MessageType;
  webhookId?: string;
  /** For webhook messages: the username and avatar the author shows. */
  authorOverride?: { username: string; avatar: string | null };
  applicationId?: string;
  interactionMetadata?: APIMessage['interaction_metadata'];
  /** A reply: the message replied to (same channel). */
  replyTo?: string;
}

const MENTION_PATTERN = /<@!?(\d{5,25})>/g;

/** A message as REST returns it and MESSAGE_CREATE carries it (mentions parsed from the content). */
export function messagePayload(state: EmulatorState, fields: MessageFields): APIMessage {
  const mentionedIds = new Set([...fields.content.matchAll(MENTION_PATTERN)].map((match) => match[1] ?? ''));
  const author = fields.authorOverride
    ? {
        ...userPayload({ id: fields.webhookId ?? fields.author.id, username: fields.authorOverride.username, bot: true }),
        avatar: fields.authorOverride.avatar,
      }
    : userPayload(fields.author);
  const payload: APIMessage = {
    id: fields.id,
    type: fields.type ?? MessageType.Default,
    channel_id: fields.channelId,
    author,
    content: fields.content,
    timestamp: iso(Date.now()),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [...mentionedIds].filter((id) => state.users.has(id)).map((id) => userPayload(state.user(id))),
    mention_roles: [],
    attachments: fields.attachments ?? [],
    embeds: fields.embeds ?? [],
    pinned: false,
    flags: fields.flags ?? 0,
    components: (fields.components ?? []) as APIMessage['components'],
  };
  if (fields.webhookId !== undefined) payload.webhook_id = fields.webhookId;
  if (fields.applicationId !== undefined) payload.application_id = fields.applicationId;
  if (fields.interactionMetadata !== undefined) payload.interaction_metadata = fields.interactionMetadata;
  if (fields.replyTo !== undefined) {
    const channel = state.channels.get(fields.channelId);
    payload.type = MessageType.Reply;
    payload.message_reference = {
      type: 0,
      message_id: fields.replyTo,
      channel_id: fields.channelId,
      ...(channel?.kind === 'dm' ? {} : { guild_id: state.guildId }),
    };
  }
  return payload;
}

/** A channel webhook; the token is included, as for the webhook's creator. */
export function webhookPayload(
  state: EmulatorState,
  webhook: { id: string; token: string; channelId: string; name: string; avatar: string | null; createdBy: string; applicationId?: string },
): APIWebhook {
  return {
    id: webhook.id,
    type: WebhookType.Incoming,
    guild_id: state.guildId,
    channel_id: webhook.channelId,
    name: webhook.name,
    avatar: webhook.avatar,
    token: webhook.token,
    application_id: webhook.applicationId ?? state.applicationId,
    user: userPayload(state.user(webhook.createdBy)),
  };
}
