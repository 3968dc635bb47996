import { AbortedError, ModelError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { FinishReason, LanguageModel, ModelRequest, ModelStreamPart, ModelUsage } from '../model/language-model.js';
import type { AgentEvent } from './agent-events.js';
import { createToolCallTextFilter, parseTextToolCalls } from './text-tool-calls.js';
import type { ToolCallRequest } from './tool-executor.js';

export interface ModelStepOptions {
  model: LanguageModel;
  request: ModelRequest & { signal: AbortSignal };
  /** Parse `<tool_call>` blocks out of the text (models without native tool calling). */
  textToolCalls: boolean;
  /** Prefix for ids of tool calls parsed from text, unique within the turn. */
  textCallIdPrefix: string;
  /** Receives visible text as it streams. */
  onText(text: string): void;
  emit(event: AgentEvent): void;
  logger: Logger;
}

/** What one model call produced. `error` is set when it failed or was aborted part-way. */
export interface ModelStepResult {
  /** Visible text (tool-call blocks removed). */
  text: string;
  /** The text as the model wrote it, for the history in text mode. */
  rawText: string;
  toolCalls: ToolCallRequest[];
  usage: ModelUsage[];
  finishReason: FinishReason;
  error?: Error;
}

function toStepError(error: unknown, signal: AbortSignal): Error {
  if (error instanceof AbortedError || signal.aborted) {
    return error instanceof AbortedError ? error : new AbortedError(undefined, { cause: error });
  }
  if (error instanceof ModelError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ModelError(`The model call failed: ${detail}`, { cause: error });
}

/** Waits for the next stream part, or for the abort, whichever comes first. */
function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Streams one model call: forwards text and reasoning deltas as they arrive (reasoning only as
 * events), collects tool calls and usage. Failures come back in `error`, never thrown.
 */
export async function runModelStep(options: ModelStepOptions): Promise<ModelStepResult> {
  const { model, request, emit, logger } = options;
  const signal = request.signal;
  const filter = options.textToolCalls ? createToolCallTextFilter() : undefined;
  const result: ModelStepResult = { text: '', rawText: '', toolCalls: [], usage: [], finishReason: 'other' };
  const showText = (text: string): void => {
    if (text === '') return;
    result.text += text;
    options.onText(text);
  };

  let iterator: AsyncIterator<ModelStreamPart> | undefined;
  try {
    iterator = model.stream(request)[Symbol.asyncIterator]();
    for (;;) {
      const next = await nextOrAbort(iterator, signal);
      if (next.done) break;
      handlePart(next.value);
    }
  } catch (error) {
    result.error = toStepError(error, signal);
    if (iterator?.return) {
      iterator.return().catch((closeError: unknown) => logger.debug('closing the model stream failed', { error: closeError }));
    }
  }
  if (filter) showText(filter.flush());
  if (options.textToolCalls && result.error === undefined) {
    const parsed = parseTextToolCalls(result.rawText, options.textCallIdPrefix);
    result.toolCalls = parsed.calls;
    result.text = parsed.visibleText;
  }
  return result;

  function handlePart(part: ModelStreamPart): void {
    switch (part.type) {
      case 'text-delta':
        result.rawText += part.text;
        showText(filter ? filter.push(part.text) : part.text);
        break;
      case 'reasoning-delta':
        emit({ type: 'reasoning-delta', text: part.text });
        break;
      case 'tool-call':
        if (part.repaired) emit({ type: 'tool-input-repaired', toolCall: part.toolCall, ...(part.repairNotes ? { notes: part.repairNotes } : {}) });
        result.toolCalls.push(
          part.inputError === undefined
            ? { toolCall: part.toolCall, input: part.input }
            : { toolCall: part.toolCall, input: part.input, inputError: part.inputError },
        );
        break;
      case 'usage':
        result.usage.push(part.usage);
        emit({ type: 'usage', usage: part.usage });
        break;
      case 'finish':
        result.finishReason = part.reason;
        break;
    }
  }
}
