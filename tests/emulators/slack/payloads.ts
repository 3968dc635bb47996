/**
 * Builders of payloads shaped as Slack documents and sends them: `app_mention` and `message` events
 * (https://docs.slack.dev/reference/events/app_mention, …/events/message), the `event_callback`
 * wrapper, slash-command form fields (https://docs.slack.dev/interactivity/implementing-slash-commands),
 * `block_actions` (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload) and the
 * Socket Mode envelopes (https://docs.slack.dev/apis/events-api/using-socket-mode).
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** The ids that identify the emulated workspace and app. */
export interface WorkspaceIdentity {
  teamId: string;
  teamDomain: string;
  appId: string;
  botUserId: string;
  botId: string;
}

/** A Socket Mode envelope as the server sends it. */
export interface SocketEnvelope {
  envelope_id: string;
  type: 'events_api' | 'slash_commands' | 'interactive';
  accepts_response_payload: boolean;
  payload: Record<string, unknown>;
  retry_attempt?: number;
  retry_reason?: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random Slack-style id: `prefix` then uppercase letters and digits (`Ev08ABCD1234`). */
export function newSlackId(prefix: string, length = 10): string {
  const bytes = randomBytes(length);
  return prefix + [...bytes].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/** A trigger id in Slack's `team.time.hash` shape. */
export function newTriggerId(): string {
  return `${Date.now()}.${Math.floor(Math.random() * 1e12)}.${randomBytes(16).toString('hex')}`;
}

/** The rich_text block Slack attaches to a user's message, with `<@U…>` mentions as user elements. */
export function buildRichTextBlocks(text: string): unknown[] {
  const elements: Record<string, unknown>[] = [];
  const pattern = /<@([A-Z0-9]+)>/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) elements.push({ type: 'text', text: text.slice(last, match.index) });
    elements.push({ type: 'user', user_id: match[1] });
    last = match.index + match[0].length;
  }
  if (last < text.length) elements.push({ type: 'text', text: text.slice(last) });
  return [{ type: 'rich_text', block_id: randomBytes(3).toString('base64url'), elements: [{ type: 'rich_text_section', elements }] }];
}

/** Input of the user-message event builders. */
export interface UserMessageInput {
  userId: string;
  channelId: string;
  text: string;
  ts: string;
  teamId: string;
  /** The parent's ts when the message is posted in a thread. */
  threadTs?: string;
  /** The author of the thread's parent (Slack sets it on replies). */
  parentUserId?: string;
}

function userMessageFields(input: UserMessageInput): Record<string, unknown> {
  return {
    user: input.userId,
    text: input.text,
    ts: input.ts,
    client_msg_id: randomUUID(),
    team: input.teamId,
    blocks: buildRichTextBlocks(input.text),
    channel: input.channelId,
    event_ts: input.ts,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.threadTs && input.parentUserId ? { parent_user_id: input.parentUserId } : {}),
  };
}

/** An `app_mention` event: the text carries `<@BOTUSER>` where the user mentioned the app. */
export function buildAppMentionEvent(input: UserMessageInput): Record<string, unknown> {
  return { type: 'app_mention', ...userMessageFields(input) };
}

/** A `message` event from a person (message.channels / message.im subscriptions). */
export function buildUserMessageEvent(input: UserMessageInput & { channelType?: 'channel' | 'group' | 'im' }): Record<string, unknown> {
  return { type: 'message', ...userMessageFields(input), channel_type: input.channelType ?? 'channel' };
}

/** A `message` event for a message an app posted (what a bot must ignore, its own included). */
export function buildBotMessageEvent(input: {
  botId: string;
  channelId: string;
  text: string;
  ts: string;
  appId?: string;
  botUserId?: string;
  username?: string;
  threadTs?: string;
}): Record<string, unknown> {
  return {
    type: 'message',
    subtype: 'bot_message',
    text: input.text,
    ts: input.ts,
    bot_id: input.botId,
    ...(input.appId ? { app_id: input.appId } : {}),
    ...(input.botUserId ? { user: input.botUserId } : {}),
    ...(input.username ? { username: input.username } : {}),
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    channel: input.channelId,
    event_ts: input.ts,
    channel_type: 'channel',
  };
}

/** The `event_callback` body that carries one event, with the authorization of the bot user. */
export function buildEventCallback(
  event: Record<string, unknown>,
  identity: WorkspaceIdentity,
  ids: { eventId: string; eventTime: number },
): Record<string, unknown> {
  return {
    token: 'emulator-verification-token',
    team_id: identity.teamId,
    context_team_id: identity.teamId,
    context_enterprise_id: null,
    api_app_id: identity.appId,
    event,
    type: 'event_callback',
    event_id: ids.eventId,
    event_time: ids.eventTime,
    authorizations: [{ enterprise_id: null, team_id: identity.teamId, user_id: identity.botUserId, is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(24).toString('base64url')}`,
  };
}

/** Input of {@link buildSlashCommandPayload}. */
export interface SlashCommandInput {
  command: string;
  text: string;
  userId: string;
  channelId: string;
  userName?: string;
  channelName?: string;
}

/** The form fields of a slash command invocation (Socket Mode delivers them as a JSON object). */
export function buildSlashCommandPayload(
  input: SlashCommandInput,
  identity: WorkspaceIdentity,
  urls: { responseUrl: string; triggerId: string },
): Record<string, string> {
  return {
    token: 'emulator-verification-token',
    team_id: identity.teamId,
    team_domain: identity.teamDomain,
    channel_id: input.channelId,
    channel_name: input.channelName ?? input.channelId.toLowerCase(),
    user_id: input.userId,
    user_name: input.userName ?? input.userId.toLowerCase(),
    command: input.command.startsWith('/') ? input.command : `/${input.command}`,
    text: input.text,
    api_app_id: identity.appId,
    is_enterprise_install: 'false',
    response_url: urls.responseUrl,
    trigger_id: urls.triggerId,
  };
}

/** Input of {@link buildBlockActionsPayload}: one button click on a message. */
export interface BlockActionInput {
  userId: string;
  channelId: string;
  messageTs: string;
  actionId: string;
  value: string;
  threadTs?: string;
  blockId?: string;
  userName?: string;
  /** The button's label; read from the message's blocks when omitted. */
  actionText?: string;
  /** An option picked in a `static_select` (then `value` is ignored): the option's value as the message offered it. */
  selectedOption?: { value: string; text?: string };
}

/** A `block_actions` interaction payload for a button in a channel message. */
export function buildBlockActionsPayload(
  input: BlockActionInput,
  identity: WorkspaceIdentity,
  context: { message: Record<string, unknown>; responseUrl: string; triggerId: string; actionTs: string },
): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: {
      id: input.userId,
      username: input.userName ?? input.userId.toLowerCase(),
      name: input.userName ?? input.userId.toLowerCase(),
      team_id: identity.teamId,
    },
    api_app_id: identity.appId,
    token: 'emulator-verification-token',
    container: {
      type: 'message',
      message_ts: input.messageTs,
      channel_id: input.channelId,
      is_ephemeral: false,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    trigger_id: context.triggerId,
    team: { id: identity.teamId, domain: identity.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channelId, name: input.channelId.toLowerCase() },
    message: context.message,
    state: { values: {} },
    response_url: context.responseUrl,
    actions: [
      input.selectedOption
        ? {
            // https://docs.slack.dev/reference/interaction-payloads/block_actions-payload (a select: no value, the option picked)
            action_id: input.actionId,
            block_id: input.blockId ?? randomBytes(3).toString('base64url'),
            selected_option: {
              text: { type: 'plain_text', text: input.selectedOption.text ?? input.selectedOption.value, emoji: true },
              value: input.selectedOption.value,
            },
            type: 'static_select',
            action_ts: context.actionTs,
          }
        : {
            action_id: input.actionId,
            block_id: input.blockId ?? randomBytes(3).toString('base64url'),
            text: { type: 'plain_text', text: input.actionText ?? input.actionId, emoji: true },
            value: input.value,
            type: 'button',
            action_ts: context.actionTs,
          },
    ],
  };
}

/** Wraps a payload in a Socket Mode envelope. */
export function buildEnvelope(
  type: SocketEnvelope['type'],
  payload: Record<string, unknown>,
  options: { envelopeId?: string; retryAttempt?: number; retryReason?: string } = {},
): SocketEnvelope {
  return {
    envelope_id: options.envelopeId ?? randomUUID(),
    type,
    accepts_response_payload: type !== 'events_api',
    payload,
    ...(type === 'events_api' ? { retry_attempt: options.retryAttempt ?? 0, retry_reason: options.retryReason ?? '' } : {}),
  };
}
