/**
 * Token routes under `/webhooks/:id/:token`: channel webhooks executed under any username and
 * avatar (optionally into a thread), and the same paths used with an interaction token for
 * follow-ups and `@original`.
 * https://discord.com/developers/docs/resources/webhook#execute-webhook
 */
import { DiscordApiError, stringField, unknownChannel, unknownMessage, unknownWebhook, type Route, type RouteContext } from './http-kit.js';
import type { InteractionResponder } from './interaction-routes.js';
import type { EmulatorState, WebhookInfo } from './state.js';
import { readMessageContent, type World } from './world.js';

const DISCORD_MAX_USERNAME_LENGTH = 80;

/** Creates the `/webhooks` routes. */
export function createWebhookRoutes(state: EmulatorState, world: World, interactions: InteractionResponder): Route[] {
  const interactionOf = (context: RouteContext) => {
    const interaction = state.interactions.get(context.params['token'] ?? '');
    return interaction && context.params['webhookId'] === state.applicationId ? interaction : undefined;
  };

  const webhookOf = (context: RouteContext): WebhookInfo => {
    const webhook = state.webhooks.get(context.params['webhookId'] ?? '');
    if (!webhook) throw unknownWebhook();
    if (webhook.token !== context.params['token']) throw new DiscordApiError(401, 50027, 'Invalid Webhook Token');
    return webhook;
  };

  /** The channel a webhook message goes to: the webhook's channel, or one of its threads. */
  const targetChannel = (webhook: WebhookInfo, context: RouteContext): string => {
    const threadId = context.query.get('thread_id');
    if (threadId === null) return webhook.channelId;
    const thread = state.channels.get(threadId);
    if (thread?.kind !== 'thread' || thread.parentId !== webhook.channelId) throw unknownChannel();
    return thread.id;
  };

  const messageChannel = (context: RouteContext): string | undefined => {
    if (interactionOf(context)) return undefined;
    const webhook = state.webhooks.get(context.params['webhookId'] ?? '');
    if (!webhook) return undefined;
    const threadId = context.query.get('thread_id');
    return threadId ?? webhook.channelId;
  };

  const webhookMessage = (webhook: WebhookInfo, context: RouteContext) => {
    const message = world.findMessage(context.params['messageId'] ?? '', targetChannel(webhook, context));
    if (!message || message.payload.webhook_id !== webhook.id) throw unknownMessage();
    return message;
  };

  return [
    {
      method: 'POST',
      pattern: '/webhooks/:webhookId/:token',
      auth: 'none',
      major: 'webhookId',
      messageChannel,
      handle: (context) => {
        const interaction = interactionOf(context);
        if (interaction) return { status: 200, body: interactions.followUp(interaction, context) };
        const webhook = webhookOf(context);
        const channelId = targetChannel(webhook, context);
        const username = stringField(context.body, 'username') ?? webhook.name;
        if (username.length < 1 || username.length > DISCORD_MAX_USERNAME_LENGTH) {
          throw new DiscordApiError(400, 50035, 'Invalid Form Body', {
            username: { _errors: [{ code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between 1 and ${DISCORD_MAX_USERNAME_LENGTH} in length.` }] },
          });
        }
        const content = readMessageContent(context.body, context.files, true);
        const avatarUrl = stringField(context.body, 'avatar_url');
        const stored = world.createMessage({
          channelId,
          author: state.user(webhook.createdBy),
          authorOverride: { username, avatar: avatarUrl === undefined ? webhook.avatar : null },
          webhookId: webhook.id,
          applicationId: state.applicationId,
          content: content.content,
          embeds: content.embeds,
          components: content.components,
          flags: content.flags,
          files: content.files,
          ...(avatarUrl === undefined ? {} : { avatarUrl }),
        });
        return context.query.get('wait') === 'true' ? { status: 200, body: stored.payload } : { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: '/webhooks/:webhookId/:token/messages/:messageId',
      auth: 'none',
      major: 'webhookId',
      handle: (context) => {
        const interaction = interactionOf(context);
        if (interaction) return { status: 200, body: interactions.messageFor(interaction, context.params['messageId'] ?? '').payload };
        return { status: 200, body: webhookMessage(webhookOf(context), context).payload };
      },
    },
    {
      method: 'PATCH',
      pattern: '/webhooks/:webhookId/:token/messages/:messageId',
      auth: 'none',
      major: 'webhookId',
      messageChannel,
      handle: (context) => {
        const interaction = interactionOf(context);
        if (interaction) return { status: 200, body: interactions.edit(interaction, context.params['messageId'] ?? '', context) };
        const message = webhookMessage(webhookOf(context), context);
        return { status: 200, body: world.editMessage(message, readMessageContent(context.body, context.files, false)).payload };
      },
    },
    {
      method: 'DELETE',
      pattern: '/webhooks/:webhookId/:token/messages/:messageId',
      auth: 'none',
      major: 'webhookId',
      handle: (context) => {
        const interaction = interactionOf(context);
        const message = interaction ? interactions.messageFor(interaction, context.params['messageId'] ?? '') : webhookMessage(webhookOf(context), context);
        world.deleteMessage(message);
        return { status: 204 };
      },
    },
  ];
}
