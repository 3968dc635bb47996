/**
 * Thread etiquette: in a bot's thread, the person who started it is answered; someone else is
 * answered when they address the bot or a character (a mention, or a leading name), otherwise
 * their message is kept as context for the next turn and not answered — two colleagues talking
 * to each other in the thread do not start turns. `threadReplies: everyone` answers all.
 */
import type { Roster } from '../core/data/types.js';
import type { SessionStore, SideTalk } from '../core/store/session-store.js';
import type { ThreadRef, UserRef } from './chat-surface.js';
import { takeLeadingCharacter } from './character-selection.js';

/** Side talk kept per thread: the newest this many messages, each cut to this many characters. */
export const SIDE_TALK_MAX_MESSAGES = 20;
export const SIDE_TALK_MAX_CHARS = 2_000;

export function addressesCharacter(roster: Roster, text: string): boolean {
  return takeLeadingCharacter(roster, text).character !== undefined;
}

/** True when the message should start a turn; false when it is kept as side talk. */
export function shouldAnswer(options: { rule: 'starter' | 'everyone'; starter?: UserRef; user: UserRef; addressed: boolean }): boolean {
  if (options.rule === 'everyone' || options.addressed) return true;
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

/** The user message of the next turn with what was said meanwhile in front of it. */
export function withSideTalk(sideTalk: readonly SideTalk[], text: string): string {
  if (sideTalk.length === 0) return text;
  const lines = sideTalk.map((entry) => `- ${entry.userName ?? entry.user}: ${entry.text.replace(/\s*\n\s*/g, ' ')}`);
  return `Meanwhile in this thread (said between people, not to you):\n${lines.join('\n')}\n\n${text}`;
}
