/**
 * The language model behind every OpenAI-compatible server (Ollama, llama.cpp, LM Studio, vLLM,
 * OpenRouter). Owns what local servers get wrong or slow: first-token and whole-generation timeouts,
 * retries before anything reached the caller, and sampling parameters a server refuses.
 */
import { OpenAI } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { AbortedError, ModelTimeoutError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { LanguageModel, ModelRequest, ModelStreamPart } from '../model/language-model.js';
import { abortableDelay, rejectOnAbort } from './abortable.js';
import { buildChatBody, findRejectedParameter } from './chat-request.js';
import { classifyFailure, toModelError } from './model-errors.js';
import { probeRequest } from './probe-request.js';
import { withReadableErrors } from './readable-error-fetch.js';
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
/** Local servers ignore the key, but the client insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed';

type StopReason = 'caller' | 'first-token' | 'generation';

/** Creates a `LanguageModel` speaking the OpenAI chat-completions streaming protocol. */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): LanguageModel {
  const firstTokenTimeoutMs = options.firstTokenTimeoutMs ?? DEFAULT_FIRST_TOKEN_TIMEOUT_MS;
  const generationTimeoutMs = options.generationTimeoutMs ?? DEFAULT_GENERATION_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const retryBaseDelayMs = options.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const logger = (options.logger ?? silentLogger).child({ provider: options.providerId, model: options.modelId });
  const context = { baseURL: options.baseURL, modelId: options.modelId };
  const client = new OpenAI({
    apiKey: options.apiKey || PLACEHOLDER_API_KEY,
    baseURL: options.baseURL,
    // Explicit nulls keep the client from reading OPENAI_* variables of the environment.
    organization: null,
    project: null,
    webhookSecret: null,
    fetch: withReadableErrors(options.fetch ?? globalThis.fetch),
    maxRetries: 0,
    timeout: generationTimeoutMs + 1_000,
    logLevel: 'off',
  });
  // Learned over this object's life: parameters the server refused, and whether it strips `<think>`.
  const dropped = new Set<string>();
  let stripsOpeningThinkTag = REASONING_MODEL_NAME.test(options.modelId);

  async function* attempt(body: ReturnType<typeof buildChatBody>, request: ModelRequest): AsyncGenerator<ModelStreamPart> {
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
    try {
      const stream = await Promise.race([client.chat.completions.create(body, { signal: controller.signal }), aborted]);
      const iterator = stream[Symbol.asyncIterator]();
      for (;;) {
        const next: IteratorResult<ChatCompletionChunk> = await Promise.race([iterator.next(), aborted]);
        if (next.done) break;
        const { parts, sawDelta } = translator.push(next.value);
        if (sawDelta && firstTokenTimer) {
          clearTimeout(firstTokenTimer);
          firstTokenTimer = undefined;
        }
        yield* parts;
      }
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
      // Releases the connection when the caller stopped reading early.
      controller.abort();
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
      const body = buildChatBody({ modelId: options.modelId, request, samplingDefaults: options.samplingDefaults ?? {}, dropped });
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
        const rejected = failure.status === 400 ? findRejectedParameter(failure.detail, body as unknown as Record<string, unknown>) : undefined;
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
