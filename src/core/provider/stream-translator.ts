/**
 * Turns OpenAI-style stream chunks into our stream parts: reply text and reasoning separated, tool
 * calls assembled and their arguments parsed (repaired when near-JSON), usage, and the finish reason.
 * Chunks are read defensively: local servers add fields (`reasoning_content`, `reasoning`) and omit
 * others.
 */
import type { FinishReason, ModelStreamPart, ToolCall } from '../model/language-model.js';
import { repairJsonArguments } from './json-repair.js';
import { createThinkSplitter, type SplitPiece, type ThinkSplitterOptions } from './think-splitter.js';
import { createToolCallAssembler, toToolCallFragment, type AssembledToolCall } from './tool-call-assembler.js';

export interface StreamTranslator {
  /** Parts for one chunk; `sawDelta` says whether it carried any text, reasoning or tool delta. */
  push(chunk: unknown): { parts: ModelStreamPart[]; sawDelta: boolean };
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
export function createStreamTranslator(options: ThinkSplitterOptions = {}): StreamTranslator {
  const splitter = createThinkSplitter(options);
  const assembler = createToolCallAssembler();
  let finishReason: string | undefined;
  let toolCallsEmitted = false;
  let emittedCallCount = 0;

  const closeContent = (parts: ModelStreamPart[]): void => {
    parts.push(...toParts(splitter.flush()));
    if (!toolCallsEmitted && assembler.hasCalls) {
      toolCallsEmitted = true;
      for (const call of assembler.finish()) {
        parts.push(toToolCallPart(call));
        emittedCallCount += 1;
      }
    }
  };

  return {
    push(chunk) {
      const parts: ModelStreamPart[] = [];
      let sawDelta = false;
      const record = asRecord(chunk);
      const choice = Array.isArray(record.choices) ? asRecord(record.choices[0]) : {};
      const delta = asRecord(choice.delta);

      const reasoning = stringField(delta, 'reasoning_content') ?? stringField(delta, 'reasoning');
      if (reasoning !== undefined && reasoning !== '') {
        sawDelta = true;
        // The server separates reasoning itself, so leading content is the reply: stop holding it.
        parts.push(...toParts(splitter.release()));
        parts.push({ type: 'reasoning-delta', text: reasoning });
      }
      const content = stringField(delta, 'content');
      if (content !== undefined && content !== '') {
        sawDelta = true;
        parts.push(...toParts(splitter.push(content)));
      }
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
        sawDelta = true;
        parts.push(...toParts(splitter.release()));
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
      const usage = asRecord(record.usage);
      if (typeof usage.prompt_tokens === 'number' || typeof usage.completion_tokens === 'number') {
        parts.push({
          type: 'usage',
          usage: { promptTokens: numberOr(usage.prompt_tokens, 0), completionTokens: numberOr(usage.completion_tokens, 0) },
        });
      }
      return { parts, sawDelta };
    },
    end() {
      const parts: ModelStreamPart[] = [];
      closeContent(parts);
      parts.push({ type: 'finish', reason: mapFinishReason(finishReason, emittedCallCount > 0) });
      return parts;
    },
    get sawBareClosingTag() {
      return splitter.sawBareClosingTag;
    },
  };
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

function toParts(pieces: SplitPiece[]): ModelStreamPart[] {
  return pieces.map((piece) => (piece.kind === 'text' ? { type: 'text-delta', text: piece.text } : { type: 'reasoning-delta', text: piece.text }));
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
