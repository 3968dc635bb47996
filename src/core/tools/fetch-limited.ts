import { TextDecoder } from 'node:util';
import { AbortedError } from '../errors.js';
import { formatBytes } from './format-bytes.js';
import { politelyTo } from './host-politeness.js';
import { isPrivateUrl } from './private-address.js';
import { ToolFailureError } from './tool-failure-error.js';

/** Redirect hops followed by hand (each one re-checked by the SSRF guard). */
export const MAX_REDIRECTS = 5;
const USER_AGENT = 'Mozilla/5.0 (compatible; TSUKA/0.1; +https://github.com/)';

export interface LimitedFetchOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  signal: AbortSignal;
  /** Lets redirects reach private addresses: only when the person approved a private URL. */
  allowPrivate: boolean;
  accept?: string;
}

export interface OpenedResponse {
  response: Response;
  finalUrl: URL;
  /** Aborts on the caller's signal or the timeout; body reads must keep using it. */
  signal: AbortSignal;
  /** Turns an abort raised while reading the body into the right error (stop or timeout). */
  describeAbort(error: unknown): Error;
}

/**
 * GET with a timeout, the caller's abort signal, and redirects followed manually so a public
 * page cannot bounce the bot to `169.254.169.254` or `localhost`.
 */
export async function openUrl(url: URL, options: LimitedFetchOptions): Promise<OpenedResponse> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  const describeAbort = (error: unknown): Error => {
    if (options.signal.aborted) return new AbortedError('Stopped.', { cause: error });
    if (timeout.aborted) {
      return new ToolFailureError(`${url.host} did not answer within ${Math.round(options.timeoutMs / 1000)} s.`, { cause: error });
    }
    return error instanceof Error ? error : new ToolFailureError(String(error), { cause: error });
  };
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    let response: Response;
    try {
      const target = current;
      response = await politelyTo(target.host, signal, () =>
        options.fetch(target, {
          method: 'GET',
          redirect: 'manual',
          signal,
          headers: { 'user-agent': USER_AGENT, accept: options.accept ?? '*/*' },
        }),
      );
    } catch (error) {
      if (signal.aborted) throw describeAbort(error);
      throw new ToolFailureError(`Could not reach ${current.host}: ${describeCause(error)}.`, { cause: error });
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new ToolFailureError(`${current.host} redirected to a ${next.protocol} URL, which is refused.`);
      }
      if (!options.allowPrivate && isPrivateUrl(next)) {
        throw new ToolFailureError(`${current.host} redirected to a private or local address (${next.host}); refused.`);
      }
      current = next;
      continue;
    }
    return { response, finalUrl: current, signal, describeAbort };
  }
  throw new ToolFailureError(`More than ${MAX_REDIRECTS} redirects starting at ${url.href}.`);
}

/**
 * Reads a body into memory up to `maxBytes`. `overflow: 'truncate'` keeps the first bytes (pages),
 * `'fail'` refuses the whole thing (downloads).
 */
export async function readBodyLimited(opened: OpenedResponse, maxBytes: number, overflow: 'truncate' | 'fail'): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of iterateBody(opened)) {
    if (total + chunk.length > maxBytes) {
      if (overflow === 'fail') throw new ToolFailureError(`The response is larger than the ${formatBytes(maxBytes)} limit.`);
      chunks.push(Buffer.from(chunk.subarray(0, maxBytes - total)));
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(Buffer.from(chunk));
    total += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** The body as chunks, with aborts and timeouts mapped to the right error; cancels on early exit. */
export async function* iterateBody(opened: OpenedResponse): AsyncGenerator<Uint8Array> {
  const body = opened.response.body;
  if (!body) return;
  const reader = body.getReader();
  try {
    while (true) {
      let step: Awaited<ReturnType<typeof reader.read>>;
      try {
        step = await reader.read();
      } catch (error) {
        throw opened.signal.aborted ? opened.describeAbort(error) : new ToolFailureError(`The download broke off: ${describeCause(error)}.`, { cause: error });
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // Cancelling a finished or errored stream may reject; there is nothing left to release then.
    await reader.cancel().catch(() => undefined);
  }
}

/** Charset from a content-type header, decoded with a UTF-8 fallback for unknown labels. */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const label = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : '';
    return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
  }
  return String(error);
}
