/**
 * Interaction responses: the initial callback (types 4, 5, 6, 7, 9) with Discord's 3-second
 * deadline and single acknowledgement, then `@original` edits and follow-ups through the
 * interaction token (no bot Authorization header).
 * https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction
 */
import {
  ApplicationIntegrationType,
  InteractionResponseType,
  MessageFlags,
  MessageType,
  type APIMessage,
  type APIMessageInteractionMetadata,
} from 'discord-api-types/v10';
import { DiscordApiError, asRecord, unknownMessage, unknownWebhook, type Route, type RouteContext } from './http-kit.js';
import { userPayload } from './payloads.js';
import type { Recorder } from './records.js';
import type { EmulatorState, InteractionInfo, StoredMessage } from './state.js';
import { readMessageContent, type World } from './world.js';

/** Discord drops an interaction that is not answered within 3 s. */
export const INTERACTION_RESPONSE_DEADLINE_MS = 3000;

const unknownInteraction = (): DiscordApiError => new DiscordApiError(404, 10062, 'Unknown interaction');

/** Handlers of interaction-token requests, shared with the `/webhooks` routes. */
export interface InteractionResponder {
  route: Route;
  /** `POST /webhooks/:app/:token` with an interaction token. */
  followUp(interaction: InteractionInfo, context: RouteContext): APIMessage;
  /** The message `@original` (or a follow-up id) names for this interaction. */
  messageFor(interaction: InteractionInfo, messageId: string): StoredMessage;
  edit(interaction: InteractionInfo, messageId: string, context: RouteContext): APIMessage;
}

/** Creates the callback route and the token-based handlers. */
export function createInteractionResponder(state: EmulatorState, world: World, recorder: Recorder): InteractionResponder {
  const metadata = (interaction: InteractionInfo): APIMessageInteractionMetadata => {
    const base = {
      id: interaction.id,
      user: userPayload(state.user(interaction.userId)),
      authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: state.guildId },
    };
    return interaction.type === 2 ? { ...base, type: 2 } : { ...base, type: 3, interacted_message_id: interaction.componentMessageId ?? '' };
  };

  const botReply = (interaction: InteractionInfo, context: RouteContext, body: Record<string, unknown>, flags: number): StoredMessage => {
    const content = readMessageContent(body, context.files, flags === 0);
    return world.createMessage({
      channelId: interaction.channelId,
      author: state.user(state.botUserId),
      content: content.content,
      embeds: content.embeds,
      components: content.components,
      files: content.files,
      flags,
      // Interaction responses are webhook messages of the application, as on Discord.
      webhookId: state.applicationId,
      applicationId: state.applicationId,
      type: interaction.type === 2 ? MessageType.ChatInputCommand : MessageType.Default,
      interactionMetadata: metadata(interaction),
    });
  };

  const respond = (interaction: InteractionInfo, type: number, data: Record<string, unknown>, context: RouteContext): void => {
    const ephemeral = (Number(data['flags'] ?? 0) & MessageFlags.Ephemeral) !== 0 ? MessageFlags.Ephemeral : 0;
    switch (type) {
      case InteractionResponseType.ChannelMessageWithSource:
        interaction.originalMessageId = botReply(interaction, context, data, ephemeral).payload.id;
        return;
      case InteractionResponseType.DeferredChannelMessageWithSource:
        interaction.originalMessageId = botReply(interaction, context, {}, MessageFlags.Loading | ephemeral).payload.id;
        return;
      case InteractionResponseType.DeferredMessageUpdate:
      case InteractionResponseType.UpdateMessage: {
        if (interaction.type !== 3 || !interaction.componentMessageId) {
          throw new DiscordApiError(400, 50035, 'Invalid Form Body', {
            type: { _errors: [{ code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: 'Invalid interaction response type' }] },
          });
        }
        interaction.originalMessageId = interaction.componentMessageId;
        const message = world.findMessage(interaction.componentMessageId);
        if (type === InteractionResponseType.UpdateMessage && message) {
          world.editMessage(message, readMessageContent(data, context.files, false));
        }
        return;
      }
      case InteractionResponseType.Modal:
        return;
      default:
        throw new DiscordApiError(400, 50035, 'Invalid Form Body', {
          type: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: `Value must be one of {4, 5, 6, 7, 9}.` }] },
        });
    }
  };

  const route: Route = {
    method: 'POST',
    pattern: '/interactions/:interactionId/:token/callback',
    auth: 'none',
    handle: (context) => {
      const interaction = state.interactions.get(context.params['token'] ?? '');
      if (!interaction || interaction.id !== context.params['interactionId']) throw unknownInteraction();
      const type = Number(context.body['type']);
      const data = asRecord(context.body['data']);
      const ms = Date.now() - interaction.dispatchedAt;
      const record = { interactionId: interaction.id, type, data: context.body['data'], ms, accepted: false, at: Date.now() };
      if (interaction.response) {
        recorder.interactionResponses.push(record);
        throw new DiscordApiError(400, 40060, 'Interaction has already been acknowledged.');
      }
      if (ms > INTERACTION_RESPONSE_DEADLINE_MS) {
        recorder.interactionResponses.push(record);
        throw unknownInteraction();
      }
      respond(interaction, type, data, context);
      interaction.response = { type, ms };
      recorder.interactionResponses.push({ ...record, accepted: true });
      interaction.resolveResponded(interaction.response);
      recorder.changed();
      if (context.query.get('with_response') !== 'true') return { status: 204 };
      return { status: 200, body: callbackResponse(interaction, type, world) };
    },
  };

  const messageFor = (interaction: InteractionInfo, messageId: string): StoredMessage => {
    const id = messageId === '@original' ? interaction.originalMessageId : messageId;
    const message = id === undefined ? undefined : world.findMessage(id);
    if (!message) throw unknownMessage();
    return message;
  };

  return {
    route,
    followUp(interaction, context) {
      if (!interaction.response) throw unknownWebhook();
      const flags = Number(context.body['flags'] ?? 0) & MessageFlags.Ephemeral;
      const original = interaction.originalMessageId === undefined ? undefined : world.findMessage(interaction.originalMessageId);
      // After a deferred reply, Discord turns the first follow-up into the "thinking…" message itself.
      const loading = original !== undefined && ((original.payload.flags ?? 0) & MessageFlags.Loading) !== 0;
      const message = loading
        ? world.editMessage(original, {
            ...readMessageContent(context.body, context.files, true),
            flags: (original.payload.flags ?? 0) & ~MessageFlags.Loading,
          })
        : botReply(interaction, context, context.body, flags);
      recorder.followUps.push({
        interactionId: interaction.id,
        messageId: message.payload.id,
        content: message.payload.content,
        ephemeral: ((message.payload.flags ?? 0) & MessageFlags.Ephemeral) !== 0,
        body: context.body,
        at: Date.now(),
      });
      recorder.changed();
      return message.payload;
    },
    messageFor,
    edit(interaction, messageId, context) {
      const message = messageFor(interaction, messageId);
      const changes = readMessageContent(context.body, context.files, false);
      const flags = (message.payload.flags ?? 0) & ~MessageFlags.Loading;
      return world.editMessage(message, { ...changes, flags }).payload;
    },
  };
}

/** The body of a callback with `?with_response=true`. */
function callbackResponse(interaction: InteractionInfo, type: number, world: World): Record<string, unknown> {
  const message = interaction.originalMessageId === undefined ? undefined : world.findMessage(interaction.originalMessageId);
  const flags = message?.payload.flags ?? 0;
  const summary: Record<string, unknown> = { id: interaction.id, type: interaction.type };
  const resource: Record<string, unknown> = { type };
  if (message && type !== InteractionResponseType.DeferredMessageUpdate) {
    summary['response_message_id'] = message.payload.id;
    summary['response_message_loading'] = (flags & MessageFlags.Loading) !== 0;
    summary['response_message_ephemeral'] = (flags & MessageFlags.Ephemeral) !== 0;
    resource['message'] = message.payload;
  }
  return { interaction: summary, resource };
}
