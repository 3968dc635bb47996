/**
 * Translates discord.js's messages and interactions into the command layer's inbound events.
 * Interactions are deferred first (ephemeral for commands, an update for buttons), which meets
 * Discord's 3-second deadline, and the work goes on without being awaited.
 * https://discord.com/developers/docs/interactions/receiving-and-responding
 */
import {
  Events,
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Message,
  type StringSelectMenuInteraction,
} from 'discord.js';
import type { InboundEvent, SlashCommandName } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { commandText, DISCORD_COMMAND_NAMES } from './application-commands.js';
import { parseCustomId } from './cards.js';
import { channelRef, DIRECT_GUILD, messageRef, threadRef, userRef } from './ids.js';
import type { InboundFile } from '../../commands/context/conversation-context.js';
import { toDiscordMarkdown } from './markdown.js';
import { DISCORD_MAX_MESSAGE_LENGTH } from './surface.js';
import { splitMessage } from '../../commands/reply/split-message.js';

export interface DiscordEventOptions {
  client: Client;
  botUserId: () => string;
  applicationId: () => string;
  plainMentions: boolean;
  dispatch: (event: InboundEvent) => Promise<void>;
  logger: Logger;
}

/** Where a channel id sits: its parent text channel and, for a thread, the thread. */
interface Place {
  guild: string;
  parent: string;
  thread?: string;
}

function placeOf(guild: string, channel: { id: string; isThread(): boolean; parentId?: string | null } | null, channelId: string): Place {
  if (channel?.isThread() && channel.parentId) return { guild, parent: channel.parentId, thread: channel.id };
  return { guild, parent: channelId };
}

export function registerDiscordListeners(options: DiscordEventOptions): void {
  const { client, logger } = options;
  const fire = (event: InboundEvent) => {
    void options.dispatch(event).catch((error: unknown) => logger.error('Discord event handling failed', { error }));
  };

  client.on(Events.MessageCreate, (message) => {
    try {
      const event = messageEvent(message, options);
      if (event) fire(event);
    } catch (error) {
      logger.error('Discord message could not be read', { messageId: message.id, error });
    }
  });

  client.on(Events.InteractionCreate, (interaction) => {
    if (interaction.isChatInputCommand()) void handleCommand(interaction, fire, logger);
    else if (interaction.isButton() || interaction.isStringSelectMenu()) void handleButton(interaction, fire, logger);
  });
}

function messageEvent(message: Message, options: DiscordEventOptions): InboundEvent | undefined {
  const botId = options.botUserId();
  // Our own posts: the bot's, and those of our webhooks (their application is this one).
  if (message.author.id === botId || (message.webhookId && message.applicationId === options.applicationId())) return undefined;
  if (!message.guildId) return directMessageEvent(message);
  const place = placeOf(message.guildId, message.channel, message.channelId);
  const mentionPattern = new RegExp(`<@!?${botId}>`, 'g');
  const mentioned = message.mentions.users.has(botId) || mentionPattern.test(message.content);
  const text = message.content.replace(mentionPattern, '').trim();
  const base = {
    id: message.id,
    platform: 'discord' as const,
    channel: channelRef(place.guild, place.parent),
    user: userRef(message.author.id),
    userName: message.member?.displayName ?? message.author.username,
    fromBot: message.author.bot || Boolean(message.webhookId),
    message: messageRef({ guild: place.guild, parent: place.parent, channel: message.channelId, message: message.id }),
    text,
    ...filesOf(message),
  };
  const thread = place.thread ? threadRef(place.guild, place.parent, place.thread) : undefined;
  // A reply to a message of the same channel brings that message (and its chain) as context; never another channel's.
  const reference = message.reference;
  const replyTo =
    reference?.messageId && reference.channelId === message.channelId
      ? messageRef({ guild: place.guild, parent: place.parent, channel: message.channelId, message: reference.messageId })
      : undefined;
  if (mentioned) return { ...base, type: 'mention', thread, ...(replyTo ? { replyTo } : {}) };
  if (thread) return { ...base, type: 'thread-message', thread };
  if (options.plainMentions && /^\s*@\w/.test(text)) return { ...base, type: 'mention', plain: true };
  return undefined;
}

/** A DM to the bot: always for it (no mention needed); the DM channel is the conversation's thread. */
function directMessageEvent(message: Message): InboundEvent | undefined {
  if (message.author.bot || message.webhookId) return undefined;
  const channel = message.channelId;
  return {
    type: 'mention',
    direct: true,
    id: message.id,
    platform: 'discord',
    channel: channelRef(DIRECT_GUILD, channel),
    user: userRef(message.author.id),
    userName: message.author.globalName ?? message.author.username,
    fromBot: false,
    message: messageRef({ guild: DIRECT_GUILD, parent: channel, channel, message: message.id }),
    thread: threadRef(DIRECT_GUILD, channel, channel),
    text: message.content.replace(/<@!?\d+>/g, '').trim(),
    ...filesOf(message),
  };
}

/** The message's attachments in platform-free form; absent when none. */
function filesOf(message: Message): { files?: InboundFile[] } {
  const files = [...message.attachments.values()].map((attachment) => ({
    name: attachment.name,
    ...(attachment.contentType ? { mediaType: attachment.contentType } : {}),
    size: attachment.size,
    source: attachment.url,
  }));
  return files.length > 0 ? { files } : {};
}

async function handleCommand(interaction: ChatInputCommandInteraction, fire: (event: InboundEvent) => void, logger: Logger): Promise<void> {
  const name = interaction.commandName as SlashCommandName;
  try {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    if (!interaction.guildId || !DISCORD_COMMAND_NAMES.includes(name)) {
      await interaction.editReply({ content: 'TSUKA answers its commands in a server channel.' });
      return;
    }
    const place = placeOf(interaction.guildId, interaction.channel, interaction.channelId);
    let replies = 0;
    // Replies go out in order: the first must replace the placeholder before any follow-up.
    let previous: Promise<unknown> = Promise.resolve();
    fire({
      type: 'slash-command',
      id: interaction.id,
      platform: 'discord',
      channel: channelRef(place.guild, place.parent),
      user: userRef(interaction.user.id),
      userName: interaction.member && 'displayName' in interaction.member ? interaction.member.displayName : interaction.user.username,
      fromBot: false,
      command: name,
      text: commandText(name, (option) => interaction.options.get(option)?.value),
      reply: (text) => {
        // The first answer replaces the "thinking…" placeholder; later ones (and parts of a long one) follow up.
        const sent = previous
          .catch(() => undefined)
          .then(async () => {
            for (const content of splitMessage(toDiscordMarkdown(text), DISCORD_MAX_MESSAGE_LENGTH)) {
              if (replies++ === 0) await interaction.editReply({ content, allowedMentions: { parse: [] } });
              else await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
            }
          });
        previous = sent;
        return sent;
      },
    });
  } catch (error) {
    logger.error('Discord command could not be acknowledged', { command: name, error });
  }
}

/** A button click, or an option picked in a menu (its choice). */
async function handleButton(interaction: ButtonInteraction | StringSelectMenuInteraction, fire: (event: InboundEvent) => void, logger: Logger): Promise<void> {
  try {
    await interaction.deferUpdate();
    // A button in a DM (an approval in a direct conversation) belongs to the DM channel.
    const place = placeOf(interaction.guildId ?? DIRECT_GUILD, interaction.channel, interaction.channelId);
    const { actionId, value } = parseCustomId(interaction.customId);
    const webhook = interaction.message.webhookId ?? undefined;
    fire({
      type: 'button-action',
      id: interaction.id,
      platform: 'discord',
      channel: channelRef(place.guild, place.parent),
      user: userRef(interaction.user.id),
      userName: interaction.member && 'displayName' in interaction.member ? interaction.member.displayName : interaction.user.username,
      fromBot: false,
      actionId,
      value,
      ...(interaction.isStringSelectMenu() ? { choice: interaction.values[0] ?? '' } : {}),
      message: messageRef({
        guild: place.guild,
        parent: place.parent,
        channel: interaction.channelId,
        message: interaction.message.id,
        ...(webhook ? { webhook } : {}),
      }),
      thread: place.thread
        ? threadRef(place.guild, place.parent, place.thread)
        : place.guild === DIRECT_GUILD
          ? threadRef(DIRECT_GUILD, place.parent, place.parent)
          : undefined,
      replyEphemeral: async (text) => {
        for (const content of splitMessage(toDiscordMarkdown(text), DISCORD_MAX_MESSAGE_LENGTH)) {
          await interaction.followUp({ content, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
        }
      },
      // After deferUpdate, editReply edits the message the button is on (webhook messages included).
      clearButtons: async () => {
        await interaction.editReply({ components: [] });
      },
    });
  } catch (error) {
    logger.error('Discord button could not be acknowledged', { customId: interaction.customId, error });
  }
}
