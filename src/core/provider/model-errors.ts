/**
 * Classification of what the OpenAI client throws into what the provider does next (retry, drop a
 * parameter, give up) and into the one sentence a person reads.
 */
import { APIConnectionError, APIError } from 'openai';
import { ModelError } from '../errors.js';
import { readServerFailure, ServerErrorBody, serverFailureError } from './server-errors.js';

/** What went wrong with one attempt, as far as retrying is concerned. */
export interface FailureInfo {
  /** Connection refused/reset, or 5xx/429: worth another try. */
  retryable: boolean;
  status?: number;
  /** The server's own words, for matching rejected parameters and for the log. */
  detail: string;
  /** Seconds the server asked us to wait (429/503 `Retry-After`). */
  retryAfterSeconds?: number;
}

const CONNECTION_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET'];

/** Reads an error from one attempt. */
export function classifyFailure(error: unknown): FailureInfo {
  if (error instanceof ServerErrorBody) return { retryable: false, detail: error.message };
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const retryAfter = Number(error.headers?.get('retry-after'));
    return {
      retryable: status >= 500 || status === 429 || status === 408,
      status,
      detail: `${error.message} ${safeStringify(error.error)}`,
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    };
  }
  return { retryable: isConnectionFailure(error), detail: describeChain(error) };
}

/** True for network-level failures anywhere in the cause chain. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  for (let current: unknown = error, depth = 0; current && depth < 6; depth += 1) {
    const record = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof record.code === 'string' && CONNECTION_CODES.includes(record.code)) return true;
    if (typeof record.message === 'string' && /fetch failed|socket hang up|terminated|other side closed/i.test(record.message)) return true;
    current = record.cause;
  }
  return false;
}

/** The final error a caller sees, worded for a person, with the original kept as `cause`. */
export function toModelError(error: unknown, context: { baseURL: string; modelId: string; offered?: readonly string[] }): ModelError {
  if (error instanceof ModelError) return error;
  // A cause the server named (context too long, no such model, an error inside the stream) is said as such.
  const failure = readServerFailure(error);
  if (failure && (failure.kind !== 'other' || failure.inStream)) return serverFailureError(failure, context, error);
  const info = classifyFailure(error);
  const where = `The model server at ${context.baseURL}`;
  const status = info.status;
  if (status === undefined) {
    if (info.retryable) return new ModelError(`${where} is not reachable.`, { cause: error, retryable: true, code: 'model_unreachable' });
    return new ModelError(`${where} sent an answer that could not be read.`, { cause: error });
  }
  const reason = shortReason(error);
  const options = { cause: error, status, retryable: info.retryable };
  if (status === 401 || status === 403) return new ModelError(`${where} refused the API key (${status}).`, options);
  if (status === 404) return new ModelError(`${where} does not know the model "${context.modelId}" (404${reason}).`, options);
  if (status === 429) return new ModelError(`${where} is rate-limiting requests (429${reason}).`, options);
  if (status >= 500) return new ModelError(`${where} failed with an internal error (${status}${reason}).`, options);
  return new ModelError(`${where} rejected the request (${status}${reason}).`, options);
}

function shortReason(error: unknown): string {
  if (!(error instanceof APIError)) return '';
  const text = error.message.replace(/^\d{3}\s*/, '').trim();
  if (text === '' || /status code \(no body\)/i.test(text)) return '';
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

function describeChain(error: unknown): string {
  const messages: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 6; depth += 1) {
    const record = current as { message?: unknown; cause?: unknown };
    if (typeof record.message === 'string') messages.push(record.message);
    current = record.cause;
  }
  return messages.join(' <- ');
}

function safeStringify(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value);
  } catch (error) {
    return error instanceof Error ? `(unserialisable: ${error.message})` : '';
  }
}
