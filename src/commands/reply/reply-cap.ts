/**
 * The cap on what one reply posts in chat. A runaway answer (a model that repeats itself until its
 * token limit: 10 MB seen) would otherwise post thousands of messages; past the cap the text is
 * kept, not shown, and the whole reply is attached as a file when the turn ends, with a note.
 */

/** Characters of a reply's text shown in chat (Slack itself truncates one message at 40,000). */
export const REPLY_MAX_CHARS = 40_000;

export interface ReplyCap {
  /** Takes text for the reply; returns the part that may still be shown ('' once the cap is reached). */
  take(text: string): string;
  /** True once some text was held back. */
  readonly overflowed: boolean;
  /** The whole reply as it was written, shown part and held-back part. */
  whole(): string;
  /** The note shown in the thread when the reply was capped. */
  note(fileName: string): string;
}

export function createReplyCap(maxChars: number = REPLY_MAX_CHARS): ReplyCap {
  const chunks: string[] = [];
  let taken = 0;
  let held = 0;
  return {
    take(text) {
      chunks.push(text);
      const room = Math.max(0, maxChars - taken);
      const shown = text.slice(0, room);
      taken += shown.length;
      held += text.length - shown.length;
      return shown;
    },
    get overflowed() {
      return held > 0;
    },
    whole: () => chunks.join(''),
    note: (fileName) =>
      `✂️ _The reply is longer than ${maxChars.toLocaleString('en-US')} characters: ${held.toLocaleString('en-US')} more are not shown here; the whole reply is attached as ${fileName}._`,
  };
}
