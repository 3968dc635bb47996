/**
 * What a conversation turn starts with and leaves behind, besides its reply: the first message
 * (the thread before a tag-in, side talk, attached files around the request), the untrusted text
 * it carries (issue 41: files, other people's and bots' words — the turn's network calls then ask),
 * and the session saved after it.
 */
import type { ChatMessage } from '../../core/model/language-model.js';
import { createUntrustedContent, type UntrustedContent } from '../../core/safety/untrusted-content.js';
import type { Session, SessionStore } from '../../core/store/session-store.js';
import type { ThreadRef, UserRef } from '../chat-surface.js';
import type { CommandDependencies } from '../command-dependencies.js';
import { SIDE_TALK_FROM_OTHERS, sideTalkFromOthers, withSideTalk } from './thread-etiquette.js';
import { withThreadContext } from '../context/thread-context.js';
import { THREAD_FROM_OTHERS, type TurnContext } from '../context/turn-context.js';

/** The untrusted text a turn starts with: what its session's history already carries, and what comes with this message. */
export function untrustedAtStart(session: Session | undefined, requester: UserRef): string[] {
  return [
    ...(session?.untrusted ?? []),
    // Someone else's turns are in this history (the thread's starter, or a colleague who addressed the character).
    ...(session?.startedBy !== undefined && session.startedBy !== requester && session.history.length > 0 ? [THREAD_FROM_OTHERS] : []),
    ...(sideTalkFromOthers(session?.sideTalk ?? [], requester) ? [SIDE_TALK_FROM_OTHERS] : []),
  ];
}

/**
 * The turn's first message — the thread before the bot was called in, what others said meanwhile
 * (thread etiquette) and the attached files come with this message, once — and the transcript's
 * note of what else the model was given; `untrusted` learns what came with it.
 */
export async function firstMessage(
  deps: CommandDependencies,
  turn: { runId: string; context: TurnContext; session?: Session; text: string; requester: UserRef; untrusted: UntrustedContent },
): Promise<string> {
  const { context } = turn;
  for (const source of context.untrusted) turn.untrusted.add(source);
  if (context.thread || context.files || context.viewing) {
    // The transcript says what else the model was given (the texts themselves are in the turn's message).
    const given = [
      context.thread ? 'the thread’s earlier messages' : '',
      context.files ? 'attached files (saved in .tsuka/inbox/)' : '',
      context.viewing ? 'what the person was looking at' : '',
    ].filter(Boolean);
    await deps.runs.appendEvent(turn.runId, { type: 'note', text: `Started with ${given.join(' and ')}.` });
  }
  const text = withThreadContext(context.viewing, withThreadContext(context.files, turn.text));
  return withThreadContext(context.thread, withSideTalk(turn.session?.sideTalk ?? [], text, turn.requester));
}

/** A fresh tracker seeded from the session (the command layer hands it to the turn and its sub-agents). */
export const trackUntrusted = (session: Session | undefined, requester: UserRef): UntrustedContent =>
  createUntrustedContent(untrustedAtStart(session, requester));

/** Saves the session after a turn: its history (this turn's messages masked), role, starter, what side talk is left, what untrusted text it carries. */
export async function saveSession(
  sessions: SessionStore,
  thread: ThreadRef,
  turn: {
    session?: Session;
    given: ChatMessage[];
    result: { history: ChatMessage[]; activeRole: string };
    character: string;
    requester: UserRef;
    untrusted: UntrustedContent;
    mask(message: ChatMessage): ChatMessage;
  },
): Promise<void> {
  const { session, given, result } = turn;
  const heard = new Set((session?.sideTalk ?? []).map((entry) => entry.at));
  const storedMessages = new Set<ChatMessage>(session?.history ?? []);
  const untrusted = turn.untrusted.sources();
  await sessions.update(thread, (stored) => ({
    threadId: thread,
    character: turn.character,
    activeRole: result.activeRole,
    effortPin: session?.effortPin,
    // Stored state never holds a secret value, even one a user pasted. Messages loaded from the
    // session were masked when stored: only this turn's are scanned (a long history is not re-masked every turn).
    history: (given === session?.history || !session ? result.history : [...session.history, ...result.history.slice(given.length)]).map((message) =>
      storedMessages.has(message) ? message : turn.mask(message),
    ),
    updatedAt: Date.now(),
    startedBy: stored?.startedBy ?? session?.startedBy ?? turn.requester,
    // Side talk given to this turn is spent; what was said while it ran waits for the next one.
    ...(stored?.sideTalk?.some((entry) => !heard.has(entry.at)) ? { sideTalk: stored.sideTalk.filter((entry) => !heard.has(entry.at)) } : {}),
    ...(untrusted.length > 0 ? { untrusted: [...untrusted] } : {}),
  }));
}
