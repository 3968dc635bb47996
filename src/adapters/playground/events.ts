/**
 * Translates what the page sends into the command layer's inbound events, the way a chat would:
 * `/call`, `/team`, `/goal`, `/tsuka` are slash commands; a message at the top of a channel
 * addresses TSUKA (the only other party here), so `@geordi …`, `geordi …` or plain text is a
 * mention and the command layer picks the character; in a thread, `@name …` is a mention in that
 * thread and anything else a thread message. Requests are answered at once; the work goes on.
 */
import { randomUUID } from 'node:crypto';
import type { InboundEvent, SlashCommandName } from '../../commands/inbound-event.js';
import type { Logger } from '../../core/logger.js';
import { USER_AUTHOR } from './cards.js';
import { parseAttachments, storeAttachments } from './attachments.js';
import { channelRef, DIRECT_CHANNEL_ID, messageRef, PLAYGROUND_USER } from './ids.js';
import type { PlaygroundState } from './state.js';

export const PLAYGROUND_COMMANDS: readonly SlashCommandName[] = ['call', 'team', 'goal', 'tsuka'];
export const PLAYGROUND_MAX_INPUT_LENGTH = 8000;
/** The port caps action ids and values at 64 characters. */
export const PLAYGROUND_MAX_ACTION_FIELD = 64;

export interface PlaygroundEventOptions {
  state: PlaygroundState;
  dispatch: (event: InboundEvent) => Promise<void>;
  logger: Logger;
}

/** An HTTP answer for the page: a status and a JSON body. */
export interface InputResult {
  status: number;
  body: Record<string, unknown>;
}

const bad = (status: number, error: string): InputResult => ({ status, body: { ok: false, error } });
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

export function createPlaygroundInput(options: PlaygroundEventOptions) {
  const { state, logger } = options;
  const fire = (event: InboundEvent) => {
    void options.dispatch(event).catch((error: unknown) => logger.error('playground event handling failed', { error, type: event.type }));
  };
  const base = (channel: string) => ({
    id: randomUUID(),
    platform: 'playground' as const,
    channel: channelRef(channel),
    user: PLAYGROUND_USER,
    userName: 'you',
    fromBot: false,
  });

  function slashCommand(channel: string, thread: string | undefined, name: string, text: string): InputResult {
    const command = PLAYGROUND_COMMANDS.find((candidate) => candidate === name.toLowerCase());
    if (!command) {
      state.addEphemeral({
        channel,
        thread,
        text: `Unknown command \`/${name}\`. The commands are ${PLAYGROUND_COMMANDS.map((known) => `\`/${known}\``).join(', ')} — try \`/tsuka help\`.`,
      });
      return { status: 200, body: { ok: true, command: null } };
    }
    fire({
      ...base(channel),
      type: 'slash-command',
      command,
      text,
      reply: async (replyText) => {
        state.addEphemeral({ channel, thread, text: replyText });
      },
    });
    return { status: 202, body: { ok: true, command } };
  }

  return {
    /** POST /api/messages `{ channel, thread?, text, files? }`; `thread` is the root message's id; files are `{ name, type, data (base64) }`. */
    message(body: unknown): InputResult {
      if (!isRecord(body) || typeof body.channel !== 'string' || typeof body.text !== 'string' || !optionalString(body.thread))
        return bad(400, 'expected { channel, thread?, text } with strings');
      const text = body.text.trim();
      const attachments = parseAttachments(body.files);
      if (!attachments.ok) return bad(attachments.status, attachments.error);
      if (text === '' && attachments.files.length === 0) return bad(400, 'the message is empty');
      if (text.length > PLAYGROUND_MAX_INPUT_LENGTH) return bad(413, `the message is longer than ${PLAYGROUND_MAX_INPUT_LENGTH} characters`);
      const channel = body.channel;
      if (!state.hasChannel(channel)) return bad(404, `no channel #${channel}`);
      let thread: string | undefined;
      if (body.thread) {
        const parent = state.findMessage(body.thread);
        if (!parent || parent.channel !== channel) return bad(404, 'no such thread in this channel');
        thread = parent.thread ?? parent.id;
      }
      const command = /^\/([\w-]+)(?:\s+([\s\S]*))?$/.exec(text);
      if (command && attachments.files.length > 0) return bad(400, 'files go with a message, not with a command');
      if (command) return slashCommand(channel, thread, command[1]!, (command[2] ?? '').trim());

      const stored = storeAttachments(state, { channel, thread }, attachments.files);
      const posted = state.addMessage({ channel, thread, author: USER_AUTHOR, text, attachments: stored.ids });
      const extra = { ...(stored.inbound.length > 0 ? { files: stored.inbound } : {}) };
      // Every message in the direct conversation addresses the bot, as a DM does on Slack and Discord.
      const direct = channel === DIRECT_CHANNEL_ID ? { direct: true } : {};
      if (thread) {
        const threadRef = messageRef(channel, thread);
        if (/^@[\p{L}\p{N}_]/u.test(text))
          fire({ ...base(channel), type: 'mention', message: posted.ref, thread: threadRef, text: stripBotName(text), ...direct, ...extra });
        else fire({ ...base(channel), type: 'thread-message', message: posted.ref, thread: threadRef, text, ...extra });
      } else {
        fire({ ...base(channel), type: 'mention', message: posted.ref, text: stripBotName(text), ...direct, ...extra });
      }
      return { status: 202, body: { ok: true, message: posted.id, thread: thread ?? posted.id } };
    },

    /** POST /api/actions `{ message, actionId, value, choice? }`: a button click (or a menu's option picked) on the message with that id. */
    action(body: unknown): InputResult {
      if (!isRecord(body) || typeof body.message !== 'string' || typeof body.actionId !== 'string' || typeof body.value !== 'string')
        return bad(400, 'expected { message, actionId, value } with strings');
      if (body.choice !== undefined && typeof body.choice !== 'string') return bad(400, 'choice, when given, is a string');
      const choice = body.choice as string | undefined;
      if (
        body.actionId.length > PLAYGROUND_MAX_ACTION_FIELD ||
        body.value.length > PLAYGROUND_MAX_ACTION_FIELD ||
        (choice?.length ?? 0) > PLAYGROUND_MAX_ACTION_FIELD
      )
        return bad(400, 'actionId, value and choice are at most 64 characters');
      const message = state.findMessage(body.message);
      if (!message) return bad(404, 'no such message');
      // Only buttons (and menu options) that were shown on this message: a click cannot decide another message's approval.
      if (!state.wasOffered(message.id, body.actionId, body.value, choice)) return bad(409, 'that button is not on this message');
      const { channel } = message;
      fire({
        ...base(channel),
        type: 'button-action',
        actionId: body.actionId,
        value: body.value,
        ...(choice === undefined ? {} : { choice }),
        message: message.ref,
        thread: message.thread ? messageRef(channel, message.thread) : undefined,
        replyEphemeral: async (replyText) => {
          state.addEphemeral({ channel, thread: message.thread, text: replyText });
        },
      });
      return { status: 202, body: { ok: true } };
    },
  };
}

/** `@tsuka geordi hi` → `geordi hi`: naming the bot itself is not naming a character. */
function stripBotName(text: string): string {
  return text.replace(/^@tsuka\b[,:]?\s*/i, '').trim();
}
