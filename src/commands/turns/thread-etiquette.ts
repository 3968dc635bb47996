/**
 * Thread etiquette: in a bot's thread, the person who started it is answered; someone else is
 * answered when they address the bot or a character (a mention, or a leading name), otherwise
 * their message is kept as context for the next turn and not answered — two colleagues talking
 * to each other in the thread do not start turns. `threadReplies: everyone` answers all. A message
 * that addresses a person (it starts with their mention) and no character is side talk whoever
 * wrote it, the starter included and under `everyone` too (issue 35).
 */
import type { Roster } from '../../core/data/types.js';
import type { SessionStore, SideTalk } from '../../core/store/session-store.js';
import type { ThreadRef, UserRef } from '../chat-surface.js';
import { takeLeadingCharacter } from './character-selection.js';
import { fenceUntrusted } from '../../core/safety/untrusted-content.js';

/** Side talk kept per thread: the newest this many messages, each cut to this many characters. */
export const SIDE_TALK_MAX_MESSAGES = 20;
export const SIDE_TALK_MAX_CHARS = 2_000;

export function addressesCharacter(roster: Roster, text: string): boolean {
  return takeLeadingCharacter(roster, text).character !== undefined;
}

/**
 * A leading mention of a person, as every surface writes one (`<@U123>`, Slack's `<@U123|ana>`,
 * Discord's `<@!123>` and role `<@&123>`, the playground's `<@playground:ana>`): the message speaks
 * to them. The bot's own mention never reaches here (that message is a mention event).
 */
const LEADING_PERSON = /^\s*<@[!&]?[A-Za-z0-9:._-]+(?:\|[^>]*)?>/;

export function addressesPerson(text: string): boolean {
  return LEADING_PERSON.test(text);
}

/** True when the message should start a turn; false when it is kept as side talk. */
export function shouldAnswer(options: {
  rule: 'starter' | 'everyone';
  starter?: UserRef;
  user: UserRef;
  addressed: boolean;
  /** It starts by addressing a person. */
  toPerson?: boolean;
}): boolean {
  if (options.addressed) return true;
  if (options.toPerson) return false;
  if (options.rule === 'everyone') return true;
  // A thread of an earlier version has no recorded starter: answered as before.
  return options.starter === undefined || options.starter === options.user;
}

/** Keeps a message as context for the thread's next turn (the session is created when the first turn has not saved one yet). */
export async function keepSideTalk(
  sessions: SessionStore,
  thread: ThreadRef,
  entry: SideTalk,
  fallback: { character: string; startedBy?: UserRef },
): Promise<void> {
  await sessions.update(thread, (current) => ({
    ...(current ?? {
      threadId: thread,
      character: fallback.character,
      history: [],
      updatedAt: entry.at,
      ...(fallback.startedBy ? { startedBy: fallback.startedBy } : {}),
    }),
    sideTalk: [...(current?.sideTalk ?? []), { ...entry, text: entry.text.slice(0, SIDE_TALK_MAX_CHARS) }].slice(-SIDE_TALK_MAX_MESSAGES),
  }));
}

export const SIDE_TALK_FROM_OTHERS = 'side talk from other people in the thread';

/** Whether side talk holds words of someone other than `requester` (untrusted text: issue 41). */
export const sideTalkFromOthers = (sideTalk: readonly SideTalk[], requester: UserRef | undefined): boolean =>
  sideTalk.some((entry) => entry.user !== requester);

/** The user message of the next turn with what was said meanwhile in front of it, fenced when others said it. */
export function withSideTalk(sideTalk: readonly SideTalk[], text: string, requester?: UserRef): string {
  if (sideTalk.length === 0) return text;
  const lines = sideTalk.map((entry) => `- ${entry.userName ?? entry.user}: ${entry.text.replace(/\s*\n\s*/g, ' ')}`);
  const block = `Meanwhile in this thread (said between people, not to you):\n${lines.join('\n')}`;
  return `${sideTalkFromOthers(sideTalk, requester) ? fenceUntrusted(SIDE_TALK_FROM_OTHERS, block) : block}\n\n${text}`;
}
