/**
 * What each model server says when it fails, read into a cause: the prompt does not fit the context
 * (llama.cpp `exceed_context_size_error` with `n_prompt_tokens`/`n_ctx`, vLLM's flat
 * `{"object":"error","message":"This model's maximum context length is …"}`, OpenAI's
 * `context_length_exceeded`), the model does not exist (Ollama `model "x" not found, try pulling it
 * first`, OpenRouter `No endpoints found …`, vLLM `The model … does not exist`), the answer hit its
 * token limit (an error chunk after `finish_reason: "length"`), or something else in the server's own
 * words.
 */
import { APIError } from 'openai';
import { ModelError } from '../errors.js';

/** An error body a server sent inside an otherwise good stream. */
export class ServerErrorBody extends Error {
  readonly body: unknown;
  constructor(body: unknown) {
    super(serverWords(body) || 'the server sent an error without a message');
    this.name = 'ServerErrorBody';
    this.body = body;
  }
}

/** The prompt does not fit the model's context window; the agent loop retries once with a pruned history. */
export class ContextTooLongError extends ModelError {
  readonly promptTokens?: number;
  readonly contextWindow?: number;
  constructor(message: string, options: { cause?: unknown; status?: number; promptTokens?: number; contextWindow?: number }) {
    super(message, { cause: options.cause, status: options.status, code: 'context_too_long' });
    this.promptTokens = options.promptTokens;
    this.contextWindow = options.contextWindow;
  }
}

export type ServerFailureKind = 'context' | 'model-not-found' | 'length' | 'other';

/** A server's error read into its cause. */
export interface ServerFailure {
  kind: ServerFailureKind;
  /** The server's own words, one line, shortened. */
  words: string;
  status?: number;
  /** True when the error came inside a stream that had started. */
  inStream: boolean;
  promptTokens?: number;
  contextWindow?: number;
}

const CONTEXT_WORDS =
  /maximum context length|context length|context window|context size|exceeds? (?:the )?(?:available )?context|prompt is too long|too many tokens in the prompt|input is too long|n_ctx/i;
const MODEL_MISSING_WORDS =
  /model\b[^.]*\bnot found|does not exist|no endpoints found|model_not_found|no such model|not a valid model|unknown model|model .* is not available/i;
const LENGTH_WORDS = /token limit|max(?:imum)?[ _]tokens|length limit|output limit/i;

/** Reads the server's error out of what one attempt threw; undefined when it was no server error. */
export function readServerFailure(error: unknown): ServerFailure | undefined {
  let body: unknown;
  let status: number | undefined;
  let inStream = false;
  if (error instanceof ServerErrorBody) {
    body = error.body;
    inStream = true;
  } else if (error instanceof APIError && (error.status !== undefined || error.error !== undefined)) {
    body = error.error;
    status = error.status;
    // The client throws an APIError without a status for an `error` chunk inside the stream.
    inStream = error.status === undefined;
  } else {
    return undefined;
  }
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const words = shorten(serverWords(body));
  const codeStatus = typeof record.code === 'number' ? record.code : undefined;
  const failure: ServerFailure = { kind: 'other', words, inStream, ...((status ?? codeStatus) ? { status: status ?? codeStatus } : {}) };
  if (record.type === 'exceed_context_size_error' || record.code === 'context_length_exceeded' || CONTEXT_WORDS.test(words)) {
    failure.kind = 'context';
    failure.promptTokens =
      numberField(record, 'n_prompt_tokens') ?? firstNumber(words, /(?:you requested|your request has|resulted in|prompt (?:has|contains|of)) (\d+)/i);
    failure.contextWindow =
      numberField(record, 'n_ctx') ?? firstNumber(words, /maximum context length is (\d+)|context (?:length|size|window) of (?:only )?(\d+)/i);
  } else if (record.code === 'model_not_found' || MODEL_MISSING_WORDS.test(words) || (status === 404 && words === '')) {
    failure.kind = 'model-not-found';
  } else if (inStream && LENGTH_WORDS.test(words)) {
    failure.kind = 'length';
  }
  return failure;
}

/** One line: what happened and what to do. `offered` lists the models the server has (model not found). */
export function serverFailureError(
  failure: ServerFailure,
  context: { baseURL: string; modelId: string; offered?: readonly string[] },
  cause: unknown,
): ModelError {
  const where = `The model server at ${context.baseURL}`;
  const said = failure.words === '' ? '' : ` ("${failure.words}")`;
  const status = failure.status;
  switch (failure.kind) {
    case 'context': {
      const sizes =
        failure.promptTokens !== undefined && failure.contextWindow !== undefined
          ? ` (${failure.promptTokens} tokens for a context of ${failure.contextWindow})`
          : failure.contextWindow !== undefined
            ? ` (its context is ${failure.contextWindow} tokens)`
            : '';
      return new ContextTooLongError(
        `The conversation is too long for the model "${context.modelId}"${sizes}: start a new thread, or run the model with a larger context window${failure.words === '' ? '' : ` (the server said: "${failure.words}")`}.`,
        { cause, status, promptTokens: failure.promptTokens, contextWindow: failure.contextWindow },
      );
    }
    case 'model-not-found': {
      const offered =
        context.offered && context.offered.length > 0
          ? ` It offers: ${context.offered.join(', ')}; choose one of them as the model.`
          : ' Choose a model it has (or pull this one).';
      return new ModelError(`${where} has no model "${context.modelId}"${said}.${offered}`, { cause, status, code: 'model_not_found' });
    }
    case 'length':
      return new ModelError(
        `The model's answer was cut off at its token limit${said}: ask for a shorter answer, or raise the server's output or context limit.`,
        {
          cause,
          status,
          code: 'model_length',
        },
      );
    default:
      return new ModelError(
        failure.inStream
          ? `${where} stopped the answer with an error${said}: try again, and check the server's log if it repeats.`
          : `${where} rejected the request (${status ?? 'error'}${said ? `: ${failure.words}` : ''}).`,
        { cause, status, retryable: status !== undefined && status >= 500 },
      );
  }
}

/** The server's message: `message` of an object body (or of its `error`), a string body as is. */
export function serverWords(body: unknown): string {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null) return '';
  const record = body as Record<string, unknown>;
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error === 'string') return record.error;
  if (typeof record.error === 'object' && record.error !== null) return serverWords(record.error);
  if (typeof record.detail === 'string') return record.detail;
  return '';
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}

function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function firstNumber(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  const digits = match?.slice(1).find((group) => group !== undefined);
  return digits === undefined ? undefined : Number(digits);
}
