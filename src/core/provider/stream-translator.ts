/**
 * Turns OpenAI-style stream chunks into our stream parts: reply text and reasoning separated, tool
 * calls assembled and their arguments parsed (repaired when near-JSON), usage, and the finish reason.
 * Chunks are read defensively: local servers add fields (`reasoning_content`, `reasoning`) and omit
 * others.
 */
import type { FinishReason, ModelStreamPart, ModelUsage, ToolCall, ToolDefinition } from '../model/language-model.js';
import { repairJsonArguments } from './json-repair.js';
import { readReasoning, readTimings, streamErrorOf } from './stream-fields.js';
import type { TextToolCall } from './text-tool-call-markup.js';
import { createTextToolCallExtractor, type TextToolCallExtractor } from './text-tool-call-stream.js';
import { createThinkSplitter, type SplitPiece, type SplitSink, type ThinkSplitterOptions } from './think-splitter.js';
import { createToolCallAssembler, toToolCallFragment, type AssembledToolCall } from './tool-call-assembler.js';

export interface StreamTranslatorOptions extends ThinkSplitterOptions {
  /** The tools the request offered: tool calls written as text are read only then. */
  tools?: readonly ToolDefinition[];
}

export interface StreamTranslator {
  /**
   * Appends the parts of one chunk to `out` (the caller's array, reused from chunk to chunk);
   * true when it carried any text, reasoning or tool delta.
   */
  push(chunk: unknown, out: ModelStreamPart[]): boolean;
  /** The closing parts (held text, tool calls, finish) once the stream ended. */
  end(): ModelStreamPart[];
  /** True once a `</think>` arrived without an opening tag (see `ThinkSplitter`). */
  readonly sawBareClosingTag: boolean;
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
};

/** Creates a translator for one generation. */
export function createStreamTranslator(options: StreamTranslatorOptions = {}): StreamTranslator {
  const splitter = createThinkSplitter(options);
  const assembler = createToolCallAssembler();
  const extractor: TextToolCallExtractor | undefined = options.tools && options.tools.length > 0 ? createTextToolCallExtractor(options.tools) : undefined;
  let finishReason: string | undefined;
  let nativeEmitted = false;
  const emittedKeys = new Set<string>();
  let emittedCallCount = 0;
  let textCallCount = 0;
  let lastUsage: ModelUsage | undefined;

  // Where split pieces go: the array of the chunk being translated.
  let target: ModelStreamPart[] = [];
  /** A split piece as a part, with text passed through the text tool-call extractor. */
  const toPart: SplitSink = (kind, piece) => {
    if (kind === 'reasoning') {
      target.push({ type: 'reasoning-delta', text: piece });
      return;
    }
    const text = extractor ? extractor.push(piece) : piece;
    if (text !== '') target.push({ type: 'text-delta', text });
  };
  const toParts = (pieces: SplitPiece[], parts: ModelStreamPart[]): void => {
    target = parts;
    for (const piece of pieces) toPart(piece.kind, piece.text);
  };

  const closeContent = (parts: ModelStreamPart[]): void => {
    toParts(splitter.flush(), parts);
    const read = extractor?.end();
    if (read && read.text !== '') parts.push({ type: 'text-delta', text: read.text });
    if (!nativeEmitted && assembler.hasCalls) {
      nativeEmitted = true;
      for (const call of assembler.finish()) {
        const part = toToolCallPart(call);
        if (part.type === 'tool-call') emittedKeys.add(callKey(part.toolCall.name, part.input));
        parts.push(part);
        emittedCallCount += 1;
      }
    }
    for (const call of read?.calls ?? []) {
      // The server parsed the call too: its own call wins, and a broken copy in text is no call.
      if (nativeEmitted && (call.inputError !== undefined || emittedKeys.has(callKey(call.name, call.input)))) continue;
      emittedKeys.add(callKey(call.name, call.input));
      textCallCount += 1;
      parts.push(textCallPart(call, `text_call_${textCallCount}`));
      emittedCallCount += 1;
    }
  };

  return {
    push(chunk, parts) {
      target = parts;
      let sawDelta = false;
      const record = asRecord(chunk);
      const streamError = streamErrorOf(record);
      if (streamError) throw streamError;
      const choice = Array.isArray(record.choices) ? asRecord(record.choices[0]) : {};
      const delta = asRecord(choice.delta);

      const reasoning = readReasoning(delta);
      if (reasoning !== '') {
        sawDelta = true;
        // The server separates reasoning itself, so leading content is the reply: stop holding it.
        splitter.releaseInto(toPart);
        parts.push({ type: 'reasoning-delta', text: reasoning });
      }
      const content = stringField(delta, 'content');
      if (content !== undefined && content !== '') {
        sawDelta = true;
        splitter.pushInto(content, toPart);
      }
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
        sawDelta = true;
        splitter.releaseInto(toPart);
        extractor?.nativeCallArrived();
        for (const raw of delta.tool_calls) {
          const fragment = toToolCallFragment(raw);
          if (fragment) assembler.add(fragment);
        }
      }
      const reason = stringField(choice, 'finish_reason');
      if (reason) {
        finishReason = reason;
        closeContent(parts);
      }
      // Some servers repeat a running usage in every chunk: only the last one counts.
      lastUsage = readUsage(record) ?? lastUsage;
      return sawDelta;
    },
    end() {
      const parts: ModelStreamPart[] = [];
      closeContent(parts);
      if (lastUsage) parts.push({ type: 'usage', usage: lastUsage });
      parts.push({ type: 'finish', reason: mapFinishReason(finishReason, emittedCallCount > 0) });
      return parts;
    },
    get sawBareClosingTag() {
      return splitter.sawBareClosingTag;
    },
  };
}

/** `usage` (any chunk, or the `choices: []` one) with llama.cpp's `timings` beside it when sent. */
function readUsage(record: Record<string, unknown>): ModelUsage | undefined {
  const usage = asRecord(record.usage);
  if (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number') return undefined;
  const timings = readTimings(record.timings);
  return { promptTokens: numberOr(usage.prompt_tokens, 0), completionTokens: numberOr(usage.completion_tokens, 0), ...timings };
}

function callKey(name: string, input: unknown): string {
  return `${name}\u0000${canonicalJson(input)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function textCallPart(call: TextToolCall, id: string): ModelStreamPart {
  const toolCall: ToolCall = { id, name: call.name, arguments: call.arguments };
  if (call.inputError !== undefined || call.input === undefined) {
    return { type: 'tool-call', toolCall, input: undefined, inputError: call.inputError ?? 'The tool call had no arguments.', textForm: call.form };
  }
  return { type: 'tool-call', toolCall, input: call.input, textForm: call.form };
}

/** Some servers (Ollama) report `stop` even when the answer is tool calls; the calls decide. */
function mapFinishReason(reason: string | undefined, hadToolCalls: boolean): FinishReason {
  if (hadToolCalls && (reason === undefined || reason === 'stop')) return 'tool-calls';
  if (reason === undefined) return 'stop';
  return Object.hasOwn(FINISH_REASONS, reason) ? FINISH_REASONS[reason]! : 'other';
}

function toToolCallPart(call: AssembledToolCall): ModelStreamPart {
  const toolCall: ToolCall = { id: call.id, name: call.name, arguments: call.arguments };
  if (call.name === '') {
    return { type: 'tool-call', toolCall, input: undefined, inputError: 'The tool call had no tool name.' };
  }
  const result = repairJsonArguments(call.arguments);
  if ('error' in result) return { type: 'tool-call', toolCall, input: undefined, inputError: result.error };
  if (typeof result.value !== 'object' || result.value === null || Array.isArray(result.value)) {
    return { type: 'tool-call', toolCall, input: undefined, inputError: 'The arguments must be a JSON object.' };
  }
  if (!result.repaired) return { type: 'tool-call', toolCall, input: result.value };
  // The repaired text goes back into the history, so servers that re-parse it there do not choke.
  return {
    type: 'tool-call',
    toolCall: { ...toolCall, arguments: JSON.stringify(result.value) },
    input: result.value,
    repaired: true,
    repairNotes: result.notes,
  };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
