/**
 * Takes tool calls written as text out of a streamed answer (after `<think>` splitting), so that no
 * tool-call markup ever reaches a person: text that could be the start of markup is held back (as the
 * think splitter holds `<think>`), a block is held until it closes, and an answer that starts like a
 * bare JSON call is held to its end. Markup a server streamed before it recognised the call itself
 * (llama.cpp sends `<tool_call>\n<function=list_dir` as content, then the parsed call) is dropped once
 * the server's own tool call arrives.
 */
import type { ToolDefinition } from '../model/language-model.js';
import {
  FUNCTION_CLOSE,
  FUNCTION_OPEN,
  MISTRAL_MARKER,
  readBareJson,
  readFunctionBlocks,
  readMistralCalls,
  readTaggedBlock,
  TOOL_CALL_CLOSE,
  TOOL_CALL_OPEN,
  type TextToolCall,
} from './text-tool-call-markup.js';

export interface TextToolCallExtractor {
  /** The part of `text` that may be shown now. */
  push(text: string): string;
  /** The server sent a tool call of its own: unfinished markup before it was the same call. */
  nativeCallArrived(): void;
  /** The end of the answer: what held text may be shown, and every call read. */
  end(): { text: string; calls: TextToolCall[] };
}

type Mode = 'text' | 'tagged' | 'function' | 'mistral' | 'bare';

const OPENERS: readonly { tag: string; mode: Mode }[] = [
  { tag: TOOL_CALL_OPEN, mode: 'tagged' },
  { tag: FUNCTION_OPEN, mode: 'function' },
  { tag: MISTRAL_MARKER, mode: 'mistral' },
];
/** Closing tags left over in text (after a server-parsed call) are dropped, not shown. */
const STRAY_CLOSERS = [TOOL_CALL_CLOSE, FUNCTION_CLOSE];
const HELD_TAGS = [...OPENERS.map((opener) => opener.tag), ...STRAY_CLOSERS];

/** Creates an extractor for one answer to a request that offered `tools`. */
export function createTextToolCallExtractor(tools: readonly ToolDefinition[]): TextToolCallExtractor {
  let mode: Mode = 'text';
  let buffer = '';
  let shownAny = false;
  let nativeSeen = false;
  const calls: TextToolCall[] = [];

  const show = (text: string): string => {
    if (text.trim() !== '') shownAny = true;
    return text;
  };

  /** Moves through the buffer as far as it can; returns the text that may be shown. */
  const advance = (): string => {
    // Every held tag starts with `<` or `[`: text without either, once some text showed, goes out whole.
    if (mode === 'text' && shownAny && buffer.indexOf('<') === -1 && buffer.indexOf('[') === -1) {
      const visible = buffer;
      buffer = '';
      return visible;
    }
    let visible = '';
    for (;;) {
      if (mode === 'mistral' || mode === 'bare') return visible;
      if (mode === 'tagged' || mode === 'function') {
        const close = mode === 'tagged' ? TOOL_CALL_CLOSE : FUNCTION_CLOSE;
        const index = buffer.indexOf(close);
        if (index === -1) return visible;
        const body = buffer.slice(0, index);
        calls.push(...(mode === 'tagged' ? readTaggedBlock(body, tools) : readFunctionBlocks(`${FUNCTION_OPEN}${body}${FUNCTION_CLOSE}`, tools)));
        buffer = buffer.slice(index + close.length);
        mode = 'text';
        continue;
      }
      if (!shownAny && visible.trim() === '') {
        const start = buffer.trimStart();
        if (start === '') return visible;
        if (startsBareJson(start)) {
          mode = 'bare';
          return visible;
        }
        if (couldStartBareJson(start)) return visible;
      }
      const found = firstOf(buffer, HELD_TAGS);
      if (found) {
        visible += show(buffer.slice(0, found.index));
        buffer = buffer.slice(found.index + found.tag.length);
        const opener = OPENERS.find((entry) => entry.tag === found.tag);
        if (opener) mode = opener.mode;
        continue;
      }
      const keep = partialTagLength(buffer, HELD_TAGS);
      visible += show(buffer.slice(0, buffer.length - keep));
      buffer = buffer.slice(buffer.length - keep);
      return visible;
    }
  };

  return {
    push(text) {
      buffer += text;
      return advance();
    },
    nativeCallArrived() {
      nativeSeen = true;
    },
    end() {
      let text = '';
      const rest = buffer;
      buffer = '';
      if (mode === 'text') {
        // A held prefix like `<tool` is plain text, unless the server's own call shows it was markup.
        if (!nativeSeen || !HELD_TAGS.some((tag) => tag.startsWith(rest.trim()))) text = rest;
      } else if (mode === 'bare') {
        const read = readBareJson(rest, tools);
        if (read) calls.push(...read);
        else text = rest;
      } else if (mode === 'mistral') {
        if (rest.trim() !== '' || !nativeSeen) calls.push(...readMistralCalls(rest));
      } else if (!nativeSeen) {
        // An unclosed last block (the model stopped on its end token): read what it holds.
        calls.push(...(mode === 'tagged' ? readTaggedBlock(rest, tools) : readFunctionBlocks(`${FUNCTION_OPEN}${rest}`, tools)));
      }
      mode = 'text';
      return { text, calls: calls.splice(0) };
    },
  };
}

/** `{` or a fenced block whose first line opens an object. */
function startsBareJson(text: string): boolean {
  return text.startsWith('{') || /^```(?:json)?[ \t]*\r?\n\s*[{[]/.test(text);
}

/** Still too short to tell whether a fence opens a JSON object. */
function couldStartBareJson(text: string): boolean {
  if ('```json'.startsWith(text)) return true;
  return /^```(?:json)?[ \t]*(?:\r?\n\s*)?$/.test(text);
}

function firstOf(buffer: string, tags: readonly string[]): { index: number; tag: string } | undefined {
  let best: { index: number; tag: string } | undefined;
  for (const tag of tags) {
    const index = buffer.indexOf(tag);
    if (index !== -1 && (best === undefined || index < best.index)) best = { index, tag };
  }
  return best;
}

/** Length of the longest suffix of `buffer` that could be the start of one of `tags`. */
function partialTagLength(buffer: string, tags: readonly string[]): number {
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
