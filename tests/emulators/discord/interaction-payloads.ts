/**
 * Real-shaped interaction objects (slash command, button click), application commands and
 * the application itself, typed with discord-api-types.
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object
 */
import {
  ApplicationCommandType,
  ApplicationIntegrationType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  Locale,
  type APIApplication,
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIInteractionDataResolved,
  type APIInteractionGuildMember,
  type APIMessage,
  type APIMessageComponentButtonInteraction,
  type APIMessageComponentSelectMenuInteraction,
  type ApplicationFlags,
} from 'discord-api-types/v10';
import { EVERYONE_PERMISSIONS, channelPayload, memberPayload, userPayload } from './payloads.js';
import type { ChannelInfo, EmulatorState, StoredCommand, UserInfo } from './state.js';

/** Discord's default upload limit for a guild without boosts (10 MiB). */
export const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** What every interaction in the guild shares. */
export interface InteractionBase {
  id: string;
  token: string;
  channel: ChannelInfo;
  user: UserInfo;
  /** The bot's permissions in the channel, as a bit set. */
  appPermissions: bigint;
}

function guildMember(state: EmulatorState, user: UserInfo): APIInteractionGuildMember {
  return { ...memberPayload(state, user), user: userPayload(user), permissions: EVERYONE_PERMISSIONS.toString() };
}

function commonFields(state: EmulatorState, base: InteractionBase) {
  const channel = channelPayload(state, base.channel);
  return {
    id: base.id,
    application_id: state.applicationId,
    token: base.token,
    version: 1 as const,
    guild_id: state.guildId,
    guild: { id: state.guildId, features: [], locale: Locale.EnglishUS },
    channel_id: base.channel.id,
    channel,
    member: guildMember(state, base.user),
    app_permissions: base.appPermissions.toString(),
    locale: Locale.EnglishUS,
    guild_locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: state.guildId },
    context: InteractionContextType.Guild,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
}

/** INTERACTION_CREATE for a slash command typed in a guild channel. */
export function slashCommandInteractionPayload(
  state: EmulatorState,
  base: InteractionBase,
  command: StoredCommand,
  options: APIApplicationCommandInteractionDataOption<InteractionType.ApplicationCommand>[],
): APIChatInputApplicationCommandGuildInteraction {
  const data: APIChatInputApplicationCommandGuildInteraction['data'] = {
    id: command.id,
    name: command.name,
    type: ApplicationCommandType.ChatInput,
    options,
  };
  if (typeof command['guild_id'] === 'string') data.guild_id = command['guild_id'];
  const resolved = resolveUserOptions(state, options);
  if (resolved) data.resolved = resolved;
  return { ...commonFields(state, base), type: InteractionType.ApplicationCommand, data };
}

/** INTERACTION_CREATE for a click on a button of `message`. */
export function buttonInteractionPayload(
  state: EmulatorState,
  base: InteractionBase,
  customId: string,
  message: APIMessage,
): APIMessageComponentButtonInteraction {
  const payload: APIMessageComponentButtonInteraction = {
    ...commonFields(state, base),
    type: InteractionType.MessageComponent,
    data: { custom_id: customId, component_type: ComponentType.Button },
    message,
  };
  if (base.channel.kind !== 'dm') return payload;
  // In a DM Discord sends the clicking `user`, no guild and no member, in the bot-DM context.
  const {
    guild_id: _guildId,
    guild: _guild,
    member: _member,
    guild_locale: _locale,
    ...direct
  } = payload as typeof payload & { guild?: unknown; guild_locale?: unknown };
  return { ...direct, user: userPayload(base.user), context: InteractionContextType.BotDM } as unknown as APIMessageComponentButtonInteraction;
}

/** INTERACTION_CREATE for an option picked in a string select of `message` (in a guild channel or thread). */
export function selectInteractionPayload(
  state: EmulatorState,
  base: InteractionBase,
  customId: string,
  values: string[],
  message: APIMessage,
): APIMessageComponentSelectMenuInteraction {
  return {
    ...commonFields(state, base),
    type: InteractionType.MessageComponent,
    data: { custom_id: customId, component_type: ComponentType.StringSelect, values },
    message,
  } as APIMessageComponentSelectMenuInteraction;
}

/** USER options (type 6) come with the user and member in `resolved`, as Discord sends them. */
function resolveUserOptions(
  state: EmulatorState,
  options: APIApplicationCommandInteractionDataOption<InteractionType.ApplicationCommand>[],
): APIInteractionDataResolved | undefined {
  const userIds = options.flatMap((option) => (option.type === 6 ? [option.value] : []));
  if (userIds.length === 0) return undefined;
  const users: NonNullable<APIInteractionDataResolved['users']> = {};
  const members: NonNullable<APIInteractionDataResolved['members']> = {};
  for (const id of userIds) {
    const user = state.user(id);
    users[id] = userPayload(user);
    const { user: _user, deaf: _deaf, mute: _mute, ...member } = memberPayload(state, user);
    members[id] = { ...member, permissions: EVERYONE_PERMISSIONS.toString() };
  }
  return { users, members };
}

/** A registered application command as Discord returns it. */
export function commandPayload(state: EmulatorState, id: string, scope: string, input: Record<string, unknown>): StoredCommand {
  const command: StoredCommand = {
    default_member_permissions: null,
    description: '',
    options: [],
    nsfw: false,
    integration_types: [ApplicationIntegrationType.GuildInstall],
    contexts: null,
    ...input,
    id,
    application_id: state.applicationId,
    version: state.nextId(),
    name: typeof input['name'] === 'string' ? input['name'] : '',
    type: typeof input['type'] === 'number' ? input['type'] : ApplicationCommandType.ChatInput,
  };
  if (scope !== 'global') command['guild_id'] = scope;
  return command;
}

/** The bot's application (`GET /applications/@me`). */
/** GATEWAY_MESSAGE_CONTENT_LIMITED: the intent is enabled (below 100 guilds no review is needed). */
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

export function applicationPayload(state: EmulatorState, messageContentIntent = true): APIApplication {
  return {
    id: state.applicationId,
    name: 'TSUKA',
    icon: null,
    description: 'TSUKA emulated application',
    bot_public: false,
    bot_require_code_grant: false,
    bot: userPayload(state.user(state.botUserId)),
    summary: '',
    verify_key: '0'.repeat(64),
    team: null,
    flags: (messageContentIntent ? GATEWAY_MESSAGE_CONTENT_LIMITED : 0) as ApplicationFlags,
    flags_new: String(messageContentIntent ? GATEWAY_MESSAGE_CONTENT_LIMITED : 0),
    owner: userPayload(state.user(state.ownerId)),
    approximate_guild_count: 1,
  };
}
