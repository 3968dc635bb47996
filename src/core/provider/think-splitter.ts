/**
 * Separates `<think>…</think>` reasoning from the reply text of a streamed answer. Tags can be cut
 * across chunks at any character, a block may never be closed, and some servers strip the opening
 * tag (the chat template already put it in the prompt), so the reply starts with bare reasoning and a
 * lone `</think>`. To catch that last case, leading untagged text can be held back (`holdLimit`)
 * until it is clear what it is: a tag arrives, the limit is passed, `release()` is called, or the
 * stream ends. Holding delays the reply, so it is only done for models expected to reason.
 */

/** A piece of split output: reply text or reasoning. */
export interface SplitPiece {
  kind: 'text' | 'reasoning';
  text: string;
}

/** Receives split output as it is decided, without an array per chunk. */
export type SplitSink = (kind: SplitPiece['kind'], text: string) => void;

/** A streaming state machine; feed it content deltas in order. */
export interface ThinkSplitter {
  push(chunk: string): SplitPiece[];
  /** `push`, with the pieces handed to `sink` (the streaming path: no array per chunk). */
  pushInto(chunk: string, sink: SplitSink): void;
  /** `release` into `sink`. */
  releaseInto(sink: SplitSink): void;
  /** The server's own reasoning channel was used, or a tool call came: held text is reply text. */
  release(): SplitPiece[];
  /** The stream ended: emit whatever is held or pending. */
  flush(): SplitPiece[];
  /** True once a `</think>` arrived without an opening tag: hold leading text for this model next time. */
  readonly sawBareClosingTag: boolean;
}

export interface ThinkSplitterOptions {
  /**
   * How much leading untagged text to hold before deciding it is reply text: 0 (the default) lets
   * text through at once; `Infinity` holds it until a tag, a tool call or the end.
   */
  holdLimit?: number;
}

const OPEN = '<think>';
const CLOSE = '</think>';

type Mode = 'leading' | 'text' | 'reasoning';

/** Creates a splitter for one generation. */
export function createThinkSplitter(options: ThinkSplitterOptions = {}): ThinkSplitter {
  const holdLimit = options.holdLimit ?? 0;
  let mode: Mode = 'leading';
  let buffer = '';
  let trimNextText = false;
  let sawBareClosingTag = false;
  let sawOpeningTag = false;

  const emitText = (pieces: SplitSink, text: string): void => {
    let value = text;
    if (trimNextText) {
      value = value.replace(/^\s+/, '');
      if (value !== '') trimNextText = false;
    }
    if (value !== '') pieces('text', value);
  };
  const emitReasoning = (pieces: SplitSink, text: string): void => {
    if (text !== '') pieces('reasoning', text);
  };

  const process = (pieces: SplitSink, final: boolean): void => {
    // Most deltas hold no tag and no start of one: all of it goes out as it is.
    if (mode !== 'leading' && buffer.indexOf('<') === -1) {
      const ready = buffer;
      buffer = '';
      if (mode === 'reasoning') emitReasoning(pieces, ready);
      else emitText(pieces, ready);
      return;
    }
    for (;;) {
      if (mode === 'leading') {
        const open = buffer.indexOf(OPEN);
        const close = buffer.indexOf(CLOSE);
        if (close !== -1 && (open === -1 || close < open)) {
          sawBareClosingTag = true;
          emitReasoning(pieces, buffer.slice(0, close));
          buffer = buffer.slice(close + CLOSE.length);
          enterText();
          continue;
        }
        if (open !== -1) {
          const before = buffer.slice(0, open);
          if (before.trim() !== '') emitText(pieces, before);
          buffer = buffer.slice(open + OPEN.length);
          mode = 'reasoning';
          sawOpeningTag = true;
          continue;
        }
        // Whitespace before a tag is no reply; keep holding it.
        const undecided = buffer.trimStart();
        if (final || (undecided !== '' && undecided.length - partialTagLength(undecided, [OPEN, CLOSE]) > holdLimit)) {
          mode = 'text';
          continue;
        }
        return;
      }
      const tags = mode === 'reasoning' ? [CLOSE] : [OPEN, CLOSE];
      const found = firstTag(buffer, tags);
      if (found) {
        const before = buffer.slice(0, found.index);
        if (mode === 'reasoning') emitReasoning(pieces, before);
        else emitText(pieces, before);
        buffer = buffer.slice(found.index + found.tag.length);
        if (found.tag === OPEN) {
          mode = 'reasoning';
          sawOpeningTag = true;
        } else if (mode === 'reasoning') {
          enterText();
        } else if (!sawOpeningTag) {
          // Too late for this answer (its reasoning went out as text), but the model is now known.
          sawBareClosingTag = true;
        }
        // A stray `</think>` in reply text is dropped rather than shown to people.
        continue;
      }
      const keep = final ? 0 : partialTagLength(buffer, tags);
      const ready = buffer.slice(0, buffer.length - keep);
      buffer = buffer.slice(buffer.length - keep);
      if (mode === 'reasoning') emitReasoning(pieces, ready);
      else emitText(pieces, ready);
      return;
    }
  };

  function enterText(): void {
    mode = 'text';
    trimNextText = true;
  }

  const pushInto = (chunk: string, sink: SplitSink): void => {
    buffer += chunk;
    process(sink, false);
  };
  const releaseInto = (sink: SplitSink): void => {
    if (mode === 'leading') {
      mode = 'text';
      process(sink, false);
    }
  };
  const collect = (fill: (sink: SplitSink) => void): SplitPiece[] => {
    const pieces: SplitPiece[] = [];
    fill((kind, text) => pieces.push({ kind, text }));
    return pieces;
  };

  return {
    push: (chunk) => collect((sink) => pushInto(chunk, sink)),
    pushInto,
    releaseInto,
    release: () => collect(releaseInto),
    flush: () => collect((sink) => process(sink, true)),
    get sawBareClosingTag() {
      return sawBareClosingTag;
    },
  };
}

function firstTag(buffer: string, tags: string[]): { index: number; tag: string } | undefined {
  let best: { index: number; tag: string } | undefined;
  for (const tag of tags) {
    const index = buffer.indexOf(tag);
    if (index !== -1 && (best === undefined || index < best.index)) best = { index, tag };
  }
  return best;
}

/** Length of the longest suffix of `buffer` that could be the start of one of `tags`. */
function partialTagLength(buffer: string, tags: string[]): number {
  let longest = 0;
  for (const tag of tags) {
    for (let length = Math.min(tag.length - 1, buffer.length); length > longest; length -= 1) {
      if (tag.startsWith(buffer.slice(buffer.length - length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}
