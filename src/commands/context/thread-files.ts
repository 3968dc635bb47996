/**
 * Files on a thread's earlier messages (issue 23): on a tag-in, the newest few files people attached
 * before the bot was called in are fetched too — the same downloads, caps and inbox as a message's
 * own files, with a total size cap — and each is said to come from its message (who, when, how it
 * began). Older ones stay named in the thread's context only.
 */
import type { ContextMessage, InboundFile } from './conversation-context.js';
import { authorOf } from './thread-context.js';

/** Files of earlier messages fetched at most (the newest). */
export const THREAD_FILES_MAX = 5;
/** Bytes of earlier messages' files downloaded at most, together. */
export const THREAD_FILES_MAX_TOTAL_BYTES = 10_000_000;
const QUOTE_CHARS = 60;

export interface EarlierFiles {
  files: InboundFile[];
  /** Files the earlier messages had in all (more than `files` when the oldest were left). */
  total: number;
  originOf(file: InboundFile): string | undefined;
  /** The first line of their block in the turn's message. */
  heading: string;
}

/** The newest {@link THREAD_FILES_MAX} files of `messages` (oldest first), each with the message it came from. */
export function earlierFiles(messages: readonly ContextMessage[], mask: (text: string) => string): EarlierFiles {
  const all = [...messages]
    .sort((a, b) => a.at - b.at)
    .flatMap((message) => (message.files ?? []).map((file) => ({ file, origin: originText(message, mask) })));
  const kept = all.slice(-THREAD_FILES_MAX);
  const origins = new Map(kept.map((entry) => [entry.file, entry.origin]));
  const left = all.length - kept.length;
  const note = left > 0 ? ` (the newest ${kept.length} of ${all.length}; the ${left} older only named above)` : '';
  return {
    files: kept.map((entry) => entry.file),
    total: all.length,
    originOf: (file) => origins.get(file),
    heading: `Files attached to earlier messages of this thread${note}, saved in the workspace:`,
  };
}

function originText(message: ContextMessage, mask: (text: string) => string): string {
  const when = new Date(message.at).toISOString().slice(0, 16).replace('T', ' ');
  const text = mask(message.text).replace(/\s+/g, ' ').trim();
  const quote = text === '' ? '' : ` “${text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text}”`;
  return `${authorOf(message)}'s message of ${when} UTC${quote}`;
}
