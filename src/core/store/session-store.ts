/**
 * Conversation state per chat thread, so a thread resumes with the same character, role, effort pin
 * and history after a restart.
 */
import type { ReasoningEffort } from '../model/language-model.js';
import type { ChatMessage } from '../model/language-model.js';
import type { Store } from './open-store.js';

export interface Session {
  /** The opaque thread id the adapter produced. */
  threadId: string;
  character: string;
  activeRole?: string;
  effortPin?: ReasoningEffort | 'auto';
  history: ChatMessage[];
  updatedAt: number;
  /** Who started the conversation (answered in the thread without addressing a character). */
  startedBy?: string;
  /** Messages of other people in the thread, not addressed to a character: context for the next turn. */
  sideTalk?: SideTalk[];
  /** What untrusted text the history carries (issue 41: files, web pages, other people…): later turns' network calls ask. */
  untrusted?: string[];
}

/** A message kept as context, not answered (thread etiquette). Masked when stored. */
export interface SideTalk {
  user: string;
  userName?: string;
  text: string;
  at: number;
}

export interface SessionStore {
  get(threadId: string): Promise<Session | undefined>;
  save(session: Session): Promise<Session>;
  /** Read-modify-write serialized per thread; `fn` gets undefined for a new thread. */
  update(threadId: string, fn: (current: Session | undefined) => Session): Promise<Session>;
  delete(threadId: string): Promise<boolean>;
}

/** Creates the session store over the `sessions` namespace; `updatedAt` is set on every write. */
export function createSessionStore(store: Store, options: { now?: () => number } = {}): SessionStore {
  const now = options.now ?? Date.now;
  const sessions = store.namespace<Session>('sessions');
  const stamp = (session: Session, threadId: string): Session => ({ ...session, threadId, updatedAt: now() });
  return {
    get: (threadId) => sessions.get(threadId),
    save: (session) => sessions.update(session.threadId, () => stamp(session, session.threadId)),
    update: (threadId, fn) => sessions.update(threadId, (current) => stamp(fn(current), threadId)),
    delete: (threadId) => sessions.delete(threadId),
  };
}
