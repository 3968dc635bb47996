/**
 * The language model behind every OpenAI-compatible server (Ollama, llama.cpp, LM Studio, vLLM,
 * OpenRouter). Owns what local servers get wrong or slow: first-token and whole-generation timeouts,
 * retries before anything reached the caller, and sampling parameters a server refuses.
 */
import type { Stream } from 'openai/core/streaming';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { AbortedError, ModelTimeoutError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { LanguageModel, ModelRequest, ModelStreamPart } from '../model/language-model.js';
import { abortableDelay, rejectOnAbort } from './abortable.js';
import { createChatBodyWriter, type WrittenChatBody } from './chat-body-writer.js';
import { findRejectedParameter } from './chat-request.js';
import { classifyFailure, toModelError } from './model-errors.js';
import { probeRequest } from './probe-request.js';
import { sharedOpenAIClients, type OpenAIClientPool } from './openai-client-pool.js';
import { parseModelList } from './server-metadata.js';
import { createStreamTranslator } from './stream-translator.js';

/** Options of `createOpenAICompatibleModel`. */
export interface OpenAICompatibleModelOptions {
  providerId: string;
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  modelId: string;
  apiKey?: string;
  contextWindow?: number;
  fetch?: typeof fetch;
  /** No text, reasoning or tool delta within this many ms fails the call. Default 60 s. */
  firstTokenTimeoutMs?: number;
  /** The whole generation may take this long. Default 10 min. */
  generationTimeoutMs?: number;
  /** Retries on connection errors and 5xx/429 before anything was streamed. Default 2. */
  maxRetries?: number;
  /** First retry delay; doubles each time. Default 500 ms. */
  retryBaseDelayMs?: number;
  logger?: Logger;
  /** Sent with every request (`top_k`, `min_p`, `temperature`…); request values win. */
  samplingDefaults?: Record<string, unknown>;
  /** Where the `openai` client of this server comes from (default: one per server for the process). */
  clients?: OpenAIClientPool;
}

export const DEFAULT_FIRST_TOKEN_TIMEOUT_MS = 60_000;
export const DEFAULT_GENERATION_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;
/** A server's `Retry-After` is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 30_000;
/**
 * Names of models that reason before answering. Their leading text is held back until it is clear
 * whether it is reasoning (servers may strip the opening `<think>`); other models stream at once.
 */
export const REASONING_MODEL_NAME = /\b(?:r1|qwq)\b|think|reason/i;
/** How long the model list may take when a model was not found. */
const MODEL_LIST_TIMEOUT_MS = 2_500;
/** A cloud catalogue lists hundreds of models; the error line names this many. */
const MAX_OFFERED_MODELS_NAMED = 12;
const JSON_CONTENT = { 'content-type': 'application/json' } as const;

type StopReason = 'caller' | 'first-token' | 'generation';

/** Creates a `LanguageModel` speaking the OpenAI chat-completions streaming protocol. */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): LanguageModel {
  const firstTokenTimeoutMs = options.firstTokenTimeoutMs ?? DEFAULT_FIRST_TOKEN_TIMEOUT_MS;
  const generationTimeoutMs = options.generationTimeoutMs ?? DEFAULT_GENERATION_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const logger = (options.logger ?? silentLogger).child({ provider: options.providerId, model: options.modelId });
  const context = { baseURL: options.baseURL, modelId: options.modelId };
  const client = (options.clients ?? sharedOpenAIClients).clientFor({ baseURL: options.baseURL, apiKey: options.apiKey, fetch: options.fetch });
  const bodyWriter = createChatBodyWriter();
  // Learned over this object's life: parameters the server refused, and whether it strips `<think>`.
  const dropped = new Set<string>();
  let stripsOpeningThinkTag = REASONING_MODEL_NAME.test(options.modelId);

  /** The body goes as the JSON we wrote (its messages serialised once each), not re-encoded by the client. */
  const send = (body: WrittenChatBody, signal: AbortSignal): Promise<Stream<ChatCompletionChunk>> =>
    client.post<Stream<ChatCompletionChunk>>('/chat/completions', {
      body: body.json,
      headers: JSON_CONTENT,
      stream: true,
      signal,
      timeout: generationTimeoutMs + 1_000,
    });

  async function* attempt(body: WrittenChatBody, request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const callerSignal = request.signal;
    const controller = new AbortController();
    let stopReason: StopReason | undefined;
    const stop = (reason: StopReason): void => {
      if (stopReason) return;
      stopReason = reason;
      controller.abort();
    };
    const onCallerAbort = (): void => stop('caller');
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    if (callerSignal?.aborted) stop('caller');
    let firstTokenTimer: NodeJS.Timeout | undefined = setTimeout(() => stop('first-token'), firstTokenTimeoutMs);
    const generationTimer = setTimeout(() => stop('generation'), generationTimeoutMs);
    const aborted = rejectOnAbort(controller.signal);
    const translator = createStreamTranslator({
      ...(stripsOpeningThinkTag ? { holdLimit: Infinity } : {}),
      ...(request.tools ? { tools: request.tools } : {}),
    });
    // Parts of one chunk: one array for the whole generation, emptied after each chunk.
    const parts: ModelStreamPart[] = [];
    let finished = false;
    try {
      const stream = await Promise.race([send(body, controller.signal), aborted]);
      const iterator = stream[Symbol.asyncIterator]();
      for (;;) {
        const next: IteratorResult<ChatCompletionChunk> = await Promise.race([iterator.next(), aborted]);
        if (next.done) break;
        const sawDelta = translator.push(next.value, parts);
        if (sawDelta && firstTokenTimer) {
          clearTimeout(firstTokenTimer);
          firstTokenTimer = undefined;
        }
        for (let index = 0; index < parts.length; index += 1) yield parts[index]!;
        parts.length = 0;
      }
      finished = true;
      // The client ends the stream quietly when aborted; say why it ended.
      if (stopReason) throw stoppedError(stopReason, undefined);
      if (translator.sawBareClosingTag) stripsOpeningThinkTag = true;
      yield* translator.end();
    } catch (error) {
      if (stopReason && !(error instanceof AbortedError || error instanceof ModelTimeoutError)) throw stoppedError(stopReason, error);
      throw error;
    } finally {
      clearTimeout(firstTokenTimer);
      clearTimeout(generationTimer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      // Releases the connection when the caller stopped reading early. A stream read to its end has
      // released it already, and an abort costs an error object with a stack per listener.
      if (!finished) controller.abort();
    }
  }

  /** The error the caller sees; a missing model is named with the models the server does offer. */
  async function finalError(error: unknown): Promise<Error> {
    const first = toModelError(error, context);
    if (first.code !== 'model_not_found') return first;
    const offered = await listOfferedModels();
    return offered.length > 0 ? toModelError(error, { ...context, offered }) : first;
  }

  async function listOfferedModels(): Promise<string[]> {
    const listing = await probeRequest(`${options.baseURL.replace(/\/+$/, '')}/models`, {
      fetch: options.fetch ?? globalThis.fetch,
      signal: AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS),
      timeoutMs: MODEL_LIST_TIMEOUT_MS,
      apiKey: options.apiKey,
    });
    if (!listing.ok) {
      logger.debug('could not list the models of the server', { detail: listing.message });
      return [];
    }
    const models = parseModelList(listing.value)
      .filter((model) => !model.embedding)
      .map((model) => model.id);
    return models.length > MAX_OFFERED_MODELS_NAMED ? [...models.slice(0, MAX_OFFERED_MODELS_NAMED), `… (${models.length} in all)`] : models;
  }

  function stoppedError(reason: StopReason, cause: unknown): AbortedError | ModelTimeoutError {
    if (reason === 'caller') return new AbortedError('Stopped.', { cause });
    const timeoutMs = reason === 'first-token' ? firstTokenTimeoutMs : generationTimeoutMs;
    return new ModelTimeoutError(reason, timeoutMs, { cause });
  }

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    if (request.signal?.aborted) throw new AbortedError();
    let failures = 0;
    for (;;) {
      const body = bodyWriter.write({ modelId: options.modelId, request, samplingDefaults: options.samplingDefaults ?? {}, dropped });
      let yielded = false;
      try {
        for await (const part of attempt(body, request)) {
          yielded = true;
          yield part;
        }
        return;
      } catch (error) {
        if (error instanceof AbortedError || error instanceof ModelTimeoutError) throw error;
        // The caller already saw text: a retry would repeat it.
        if (yielded) throw await finalError(error);
        const failure = classifyFailure(error);
        const rejected = failure.status === 400 ? findRejectedParameter(failure.detail, body.parameters) : undefined;
        if (rejected) {
          dropped.add(rejected);
          logger.warn('the model server rejected a sampling parameter; sending it no more', { parameter: rejected });
          continue;
        }
        if (!failure.retryable || failures >= maxRetries) throw await finalError(error);
        failures += 1;
        const backoffMs = retryBaseDelayMs * 2 ** (failures - 1);
        const delayMs = Math.max(backoffMs, Math.min((failure.retryAfterSeconds ?? 0) * 1000, MAX_RETRY_AFTER_MS));
        logger.warn('model request failed; retrying', { attempt: failures, delayMs, status: failure.status, detail: failure.detail });
        await waitBeforeRetry(delayMs, request.signal, error);
      }
    }
  }

  return {
    providerId: options.providerId,
    modelId: options.modelId,
    contextWindow: options.contextWindow,
    stream,
  };
}

async function waitBeforeRetry(delayMs: number, signal: AbortSignal | undefined, lastError: unknown): Promise<void> {
  if (!signal) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return;
  }
  try {
    await abortableDelay(delayMs, signal);
  } catch (abortReason) {
    throw new AbortedError('Stopped.', { cause: abortReason ?? lastError });
  }
}
