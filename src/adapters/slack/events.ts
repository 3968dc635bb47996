/**
 * Translates Bolt's events, commands and actions into the command layer's inbound events.
 * Every listener acknowledges first and hands the work on without awaiting it, so Slack's
 * 3-second deadline is always met.
 */
import type { App } from '@slack/bolt';
import type { InboundEvent, SlashCommandName } from '../../commands/inbound-event.js';
import type { ChatSurface } from '../../commands/chat-surface.js';
import type { Logger } from '../../core/logger.js';
import { channelRef, messageRef, userRef } from './ids.js';
import { toSlackMrkdwn } from './markdown.js';
import type { InboundFile } from '../../commands/context/conversation-context.js';
import { inboundFileOf, type SlackFileObject } from './files.js';
import type { AssistantThreads } from './assistant-threads.js';
import type { AppContexts } from './app-context.js';
import { parseOptionValue } from './cards.js';
import { registerSessionStop } from './agent-sessions.js';

export const SLACK_COMMANDS: SlashCommandName[] = ['call', 'team', 'goal', 'tsuka'];

export interface SlackEventOptions {
  app: App;
  botUserId: () => string;
  plainMentions: boolean;
  dispatch: (event: InboundEvent) => Promise<void>;
  /** For ephemeral answers to clicks. */
  surface: ChatSurface;
  /** Rewrites a message without its actions blocks, its text untouched (stale buttons). */
  removeButtons(message: { channel: string; ts: string; text: string; blocks: unknown[] }): Promise<void>;
  logger: Logger;
  /** The assistant surface (DMs with the app): prompts when a thread opens, its title from the first message. */
  assistant?: AssistantThreads;
  /** The agent view: what each person is looking at (app_context_changed), for their next DM turn. */
  appContexts?: AppContexts;
}

interface SlackMessageLike {
  type?: string;
  subtype?: string;
  text?: string;
  user?: string;
  bot_id?: string;
  ts: string;
  thread_ts?: string;
  channel: string;
  team?: string;
  /** `im` for a direct message with the bot (event message.im). */
  channel_type?: string;
  files?: SlackFileObject[];
}

/** The message's files in platform-free form; absent when none. */
function filesOf(message: SlackMessageLike): { files?: InboundFile[] } {
  const files = (message.files ?? []).flatMap((file) => inboundFileOf(file) ?? []);
  return files.length > 0 ? { files } : {};
}

export function registerSlackListeners(options: SlackEventOptions): void {
  const { app, logger } = options;
  const fire = (event: InboundEvent) => {
    void options.dispatch(event).catch((error: unknown) => logger.error('Slack event handling failed', { error }));
  };
  // What the person was looking at, given once to their next DM turn; a store that fails costs only the context.
  const viewingOf = async (team: string, user: string | undefined) => {
    if (!options.appContexts || !user) return {};
    const viewing = await options.appContexts.take(team, user).catch((error: unknown) => {
      logger.warn('what the person is looking at could not be read', { error });
      return undefined;
    });
    return viewing ? { viewing } : {};
  };
  const stripBotMention = (text: string) => text.replace(new RegExp(`<@${options.botUserId()}(\\|[^>]*)?>`, 'g'), '').trim();

  app.event('app_mention', async ({ event, body }) => {
    const message = event as unknown as SlackMessageLike;
    const team = (body as { team_id?: string }).team_id ?? message.team ?? 'T';
    fire({
      type: 'mention',
      id: (body as { event_id?: string }).event_id ?? `${message.channel}:${message.ts}`,
      platform: 'slack',
      channel: channelRef(team, message.channel),
      user: userRef(message.user ?? 'unknown'),
      fromBot: Boolean(message.bot_id) || message.user === options.botUserId(),
      message: messageRef(team, message.channel, message.ts),
      thread: message.thread_ts ? messageRef(team, message.channel, message.thread_ts) : undefined,
      text: stripBotMention(message.text ?? ''),
      ...filesOf(message),
    });
  });

  app.message(async ({ message: raw, body }) => {
    const message = raw as unknown as SlackMessageLike;
    if (message.subtype && message.subtype !== 'thread_broadcast' && message.subtype !== 'file_share') return;
    const text = message.text ?? '';
    // Slack sends no app_mention in a DM: there every message is for the bot (event message.im).
    const direct = message.channel_type === 'im';
    // A message that mentions the bot also arrives as app_mention: answer that one only.
    if (!direct && text.includes(`<@${options.botUserId()}`)) return;
    const team = (body as { team_id?: string }).team_id ?? message.team ?? 'T';
    const base = {
      id: (body as { event_id?: string }).event_id ?? `${message.channel}:${message.ts}`,
      platform: 'slack' as const,
      channel: channelRef(team, message.channel),
      user: userRef(message.user ?? 'unknown'),
      fromBot: Boolean(message.bot_id) || message.user === options.botUserId(),
      message: messageRef(team, message.channel, message.ts),
      text: direct ? stripBotMention(text) : text.trim(),
      ...filesOf(message),
    };
    const reply = message.thread_ts !== undefined && message.thread_ts !== message.ts;
    if (direct && !reply) {
      // Agent view: every DM message is a thread root, answered in its own thread.
      fire({ ...base, type: 'mention', direct: true, ...(await viewingOf(team, message.user)) });
    } else if (direct && options.assistant?.firstMessage(team, message.channel, message.thread_ts!, base.text)) {
      // The first message of an assistant thread the person just opened: for the bot, in that thread.
      fire({ ...base, type: 'mention', direct: true, thread: messageRef(team, message.channel, message.thread_ts!), ...(await viewingOf(team, message.user)) });
    } else if (message.thread_ts && message.thread_ts !== message.ts) {
      fire({ ...base, type: 'thread-message', thread: messageRef(team, message.channel, message.thread_ts) });
    } else if (options.plainMentions && /^\s*@\w/.test(text)) {
      fire({ ...base, type: 'mention', plain: true });
    }
  });

  // A person opened a thread with the app (its DM or side container): offer the characters.
  app.event('assistant_thread_started', async ({ event, body }) => {
    const thread = (event as unknown as { assistant_thread?: { channel_id?: string; thread_ts?: string } }).assistant_thread;
    const team = (body as { team_id?: string }).team_id ?? 'T';
    if (!thread?.channel_id || !thread.thread_ts) {
      logger.warn('an assistant_thread_started event without its thread was ignored');
      return;
    }
    // Recorded before the prompts are offered: doctor reads it.
    await options.appContexts?.seen('assistant');
    void options.assistant?.started(team, thread.channel_id, thread.thread_ts);
  });
  registerAgentViewListeners(options);
  registerSessionStop(app, options.surface, fire, logger);

  for (const name of SLACK_COMMANDS) {
    app.command(`/${name}`, async ({ ack, command, respond }) => {
      await ack();
      fire({
        type: 'slash-command',
        id: command.trigger_id,
        platform: 'slack',
        channel: channelRef(command.team_id, command.channel_id),
        user: userRef(command.user_id),
        userName: command.user_name,
        fromBot: false,
        command: name,
        text: command.text ?? '',
        reply: async (text) => {
          await respond({ response_type: 'ephemeral', text: toSlackMrkdwn(text) });
        },
      });
    });
  }

  app.action(/^tsuka_/, async ({ ack, body, action }) => {
    await ack();
    const payload = body as unknown as {
      user: { id: string; name?: string; team_id?: string };
      team?: { id: string };
      channel?: { id: string };
      container?: { message_ts?: string; thread_ts?: string; channel_id?: string };
      message?: { ts: string; thread_ts?: string; text?: string; blocks?: unknown[] };
    };
    const button = action as unknown as { action_id: string; value?: string; action_ts?: string; selected_option?: { value?: string } };
    // A menu's option carries the value and the choice; a button its value.
    const picked = button.selected_option?.value === undefined ? undefined : parseOptionValue(button.selected_option.value);
    const team = payload.team?.id ?? payload.user.team_id ?? 'T';
    const channel = payload.channel?.id ?? payload.container?.channel_id ?? '';
    const messageTs = payload.message?.ts ?? payload.container?.message_ts ?? '';
    const threadTs = payload.message?.thread_ts ?? payload.container?.thread_ts;
    fire({
      type: 'button-action',
      id: `${messageTs}:${button.action_id}:${button.action_ts ?? ''}`,
      platform: 'slack',
      channel: channelRef(team, channel),
      user: userRef(payload.user.id),
      userName: payload.user.name,
      fromBot: false,
      actionId: button.action_id,
      value: picked?.value ?? button.value ?? '',
      ...(picked ? { choice: picked.choice } : {}),
      message: messageRef(team, channel, messageTs),
      thread: threadTs ? messageRef(team, channel, threadTs) : undefined,
      // Through the surface, so the reply goes through the rate limiter like every other Slack call.
      replyEphemeral: (text) =>
        options.surface.postEphemeral({
          channel: channelRef(team, channel),
          thread: threadTs ? messageRef(team, channel, threadTs) : undefined,
          user: userRef(payload.user.id),
          text,
        }),
      // The payload carries the message as shown (already mrkdwn): rewrite it without the buttons.
      ...(payload.message
        ? { clearButtons: () => options.removeButtons({ channel, ts: messageTs, text: payload.message?.text ?? '', blocks: payload.message?.blocks ?? [] }) }
        : {}),
    });
  });
}

/**
 * The Agent messaging experience (agent_view, issue 37): the Messages tab opened offers the
 * prompts; `app_context_changed` (and the assistant view's `assistant_thread_context_changed`)
 * remember what the person is looking at.
 */
function registerAgentViewListeners(options: SlackEventOptions): void {
  const { app, logger } = options;
  const teamOf = (body: unknown) => (body as { team_id?: string }).team_id ?? 'T';
  const remember = (team: string, user: string, context: unknown) =>
    void options.appContexts?.changed(team, user, context).catch((error: unknown) => logger.warn('what the person is looking at could not be kept', { error }));

  app.event('app_home_opened', async ({ event, body }) => {
    const opened = event as unknown as { tab?: string; channel?: string };
    if (opened.tab !== 'messages' || !opened.channel) return;
    await options.appContexts?.seen('agent');
    void options.assistant?.messagesTabOpened(teamOf(body), opened.channel);
  });

  app.event('app_context_changed', async ({ event, body }) => {
    const changed = event as unknown as { user?: string; context?: unknown };
    void options.appContexts?.seen('agent');
    // Without the person it belongs to, a context is nobody's: dropped rather than guessed.
    if (!changed.user) {
      logger.warn('an app_context_changed event without its user was ignored');
      return;
    }
    remember(teamOf(body), changed.user, changed.context);
  });

  app.event('assistant_thread_context_changed', async ({ event, body }) => {
    const thread = (event as unknown as { assistant_thread?: { user_id?: string; context?: { channel_id?: string } } }).assistant_thread;
    void options.appContexts?.seen('assistant');
    if (!thread?.user_id) return;
    const channel = thread.context?.channel_id;
    remember(teamOf(body), thread.user_id, channel ? { entities: [{ type: 'slack#/types/channel_id', value: channel }] } : {});
  });
}
