/**
 * What people do in the emulated guild, driven by tests: post a message, type a slash command,
 * click a button. Each produces the gateway dispatch Discord would send the bot.
 */
import { randomBytes } from 'node:crypto';
import type { APIApplicationCommandInteractionDataOption, APIMessage, InteractionType } from 'discord-api-types/v10';
import type { Gateway } from './gateway.js';
import { asRecord, arrayField, stringField } from './http-kit.js';
import { buttonInteractionPayload, selectInteractionPayload, slashCommandInteractionPayload, type InteractionBase } from './interaction-payloads.js';
import type { ChannelInfo, EmulatorState, InteractionInfo, StoredCommand } from './state.js';
import type { World } from './world.js';

/** A person posting in a channel or thread. */
export interface UserMessageInput {
  channelId: string;
  userId: string;
  content: string;
  /** Prefix the content with the bot's mention `<@BOTID>` unless it already contains it. */
  mentionsBot?: boolean;
  /** Post as another bot (a bot the TSUKA bot must ignore). */
  authorIsBot?: boolean;
  /** Files attached to the message (served at their attachment URLs). */
  files?: { filename: string; contentType: string; content: string | Buffer }[];
  /** A reply to this message (same channel). */
  replyTo?: string;
  /** Store the message without dispatching it (said before the bot was there, or in a channel it does not read). */
  silent?: boolean;
}

/** A slash command typed by a person. */
export interface SlashCommandInput {
  name: string;
  options?: { name: string; type: number; value: string | number | boolean }[];
  userId: string;
  channelId: string;
}

/** A click on a button of a message. */
export interface ButtonClickInput {
  messageId: string;
  customId: string;
  userId: string;
  channelId: string;
}

/** An option picked in a string select of a message. */
export interface SelectOptionInput extends ButtonClickInput {
  /** The option's value, as the select offered it. */
  value: string;
}

/** A dispatched interaction; `responded` settles when the bot sends its initial response. */
export interface InvokedInteraction {
  interactionId: string;
  token: string;
  responded: Promise<{ type: number; ms: number }>;
}

/** The test-facing actions. */
export interface TestActions {
  postUserMessage(input: UserMessageInput): APIMessage;
  invokeSlashCommand(input: SlashCommandInput): InvokedInteraction;
  clickButton(input: ButtonClickInput): InvokedInteraction;
  chooseOption(input: SelectOptionInput): InvokedInteraction;
}

/** Creates the actions over the emulator's world. */
export function createTestActions(state: EmulatorState, world: World, gateway: Gateway, appPermissions: bigint): TestActions {
  const channelOf = (channelId: string): ChannelInfo => {
    const channel = state.channels.get(channelId);
    if (!channel) throw new Error(`discord emulator: no channel ${channelId} (known: ${[...state.channels.keys()].join(', ')})`);
    return channel;
  };

  const startInteraction = (type: 2 | 3, channel: ChannelInfo, userId: string, componentMessageId?: string) => {
    let resolveResponded: InteractionInfo['resolveResponded'] = () => undefined;
    const responded = new Promise<{ type: number; ms: number }>((resolve) => {
      resolveResponded = resolve;
    });
    const info: InteractionInfo = {
      id: state.nextId(),
      token: `aW50ZXJhY3Rpb246${randomBytes(48).toString('base64url')}`,
      type,
      channelId: channel.id,
      userId,
      dispatchedAt: Date.now(),
      resolveResponded,
    };
    if (componentMessageId !== undefined) info.componentMessageId = componentMessageId;
    state.interactions.set(info.token, info);
    const base: InteractionBase = { id: info.id, token: info.token, channel, user: state.user(userId), appPermissions };
    return { info, base, invoked: { interactionId: info.id, token: info.token, responded } };
  };

  const findCommand = (name: string): StoredCommand => {
    const guild = state.commands.get(state.guildId) ?? [];
    const global = state.commands.get('global') ?? [];
    const command = [...guild, ...global].find((entry) => entry.name === name && entry.type === 1);
    if (!command) {
      const known = [...guild, ...global].map((entry) => `/${entry.name}`).join(', ') || 'none';
      throw new Error(`discord emulator: /${name} is not a registered command (registered: ${known}); Discord only delivers registered commands`);
    }
    return command;
  };

  return {
    postUserMessage(input) {
      const channel = channelOf(input.channelId);
      const mention = `<@${state.botUserId}>`;
      const content = input.mentionsBot && !input.content.includes(mention) ? `${mention} ${input.content}` : input.content;
      const author = state.user(input.userId);
      if (input.authorIsBot) author.bot = true;
      const files = (input.files ?? []).map((file, index) => ({
        field: `files[${index}]`,
        filename: file.filename,
        contentType: file.contentType,
        bytes: Buffer.from(file.content),
      }));
      return world.createMessage({
        channelId: channel.id,
        author,
        content,
        files,
        ...(input.replyTo ? { replyTo: input.replyTo } : {}),
        ...(input.silent ? { silent: true } : {}),
      }).payload;
    },
    invokeSlashCommand(input) {
      const command = findCommand(input.name);
      const { base, invoked } = startInteraction(2, channelOf(input.channelId), input.userId);
      const options = (input.options ?? []) as APIApplicationCommandInteractionDataOption<InteractionType.ApplicationCommand>[];
      gateway.dispatch('INTERACTION_CREATE', slashCommandInteractionPayload(state, base, command, options));
      return invoked;
    },
    clickButton(input) {
      const message = world.findMessage(input.messageId, input.channelId);
      if (!message) throw new Error(`discord emulator: no message ${input.messageId} in channel ${input.channelId}`);
      const buttons = (message.payload.components ?? []).flatMap((row) => (arrayField(asRecord(row), 'components') ?? []).map(asRecord));
      const button = buttons.find((entry) => stringField(entry, 'custom_id') === input.customId);
      if (!button || button['disabled'] === true) {
        const ids =
          buttons
            .map((entry) => stringField(entry, 'custom_id'))
            .filter(Boolean)
            .join(', ') || 'none';
        throw new Error(`discord emulator: message ${input.messageId} has no enabled button '${input.customId}' (buttons: ${ids})`);
      }
      const { base, invoked } = startInteraction(3, channelOf(input.channelId), input.userId, message.payload.id);
      gateway.dispatch('INTERACTION_CREATE', buttonInteractionPayload(state, base, input.customId, message.payload));
      return invoked;
    },
    chooseOption(input) {
      const message = world.findMessage(input.messageId, input.channelId);
      if (!message) throw new Error(`discord emulator: no message ${input.messageId} in channel ${input.channelId}`);
      const components = (message.payload.components ?? []).flatMap((row) => (arrayField(asRecord(row), 'components') ?? []).map(asRecord));
      const select = components.find((entry) => entry['type'] === 3 && stringField(entry, 'custom_id') === input.customId);
      const offered = (arrayField(select ?? {}, 'options') ?? []).map((option) => stringField(asRecord(option), 'value'));
      if (!select || !offered.includes(input.value))
        throw new Error(`discord emulator: message ${input.messageId} has no string select '${input.customId}' with option '${input.value}'`);
      const { base, invoked } = startInteraction(3, channelOf(input.channelId), input.userId, message.payload.id);
      gateway.dispatch('INTERACTION_CREATE', selectInteractionPayload(state, base, input.customId, [input.value], message.payload));
      return invoked;
    },
  };
}
