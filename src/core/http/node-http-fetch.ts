/**
 * The model client's transport: a `fetch` over `node:http`/`node:https` with keep-alive agents.
 *
 * Node's global `fetch` (undici) wraps every response in WHATWG streams and `Headers`; a tool round
 * with a local model is a few kilobytes, and that wrapping cost more than the rest of the round
 * (profile in docs/benchmarks/engine-per-round.md). The `openai` client reads a response's status,
 * headers, `body` (any async iterable of bytes) and `text()`/`json()`; this gives it exactly that,
 * with the socket's own chunks as the body. Error responses (status ≥ 400) are read whole and
 * returned as a real `Response`, so nothing downstream sees a difference on the rare path.
 *
 * Kept from `fetch`: errors are `TypeError('fetch failed', { cause })` with the socket error as
 * cause; an abort rejects (or ends the body) with an `AbortError`; redirects are followed (up to 5),
 * refused (`redirect: 'error'`, as Slack's WebClient asks) or returned (`'manual'`); gzip/deflate/br
 * bodies are decoded. Bodies other than text or bytes (a file upload's form) go to the global `fetch`.
 */
// The modules, not their named exports: `http.request` is read at each call, so interceptors that
// patch it (nock in tests, OpenTelemetry's http instrumentation) see these requests.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

type Fetch = typeof fetch;

const MAX_REDIRECTS = 5;
/** Marks a failure on a reused connection the server had closed (retried once on a new one). */
const STALE = Symbol('stale-socket');
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Response headers as `fetch` shows them (lower-case names, repeated ones joined with ", "). */
class ResponseHeaders {
  readonly #values = new Map<string, string>();

  constructor(raw: string[]) {
    for (let index = 0; index + 1 < raw.length; index += 2) {
      const name = raw[index]!.toLowerCase();
      const previous = this.#values.get(name);
      this.#values.set(name, previous === undefined ? raw[index + 1]! : `${previous}, ${raw[index + 1]!}`);
    }
  }
  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  entries(): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
  keys(): IterableIterator<string> {
    return this.#values.keys();
  }
  values(): IterableIterator<string> {
    return this.#values.values();
  }
  forEach(callback: (value: string, name: string) => void): void {
    this.#values.forEach(callback);
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#values.entries();
  }
}

/** A successful response whose body is the socket's stream (read once). */
class StreamedResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly redirected: boolean;
  readonly type = 'basic';
  #used = false;

  constructor(
    readonly url: string,
    message: IncomingMessage,
    readonly body: Readable,
    redirected: boolean,
  ) {
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = message.statusMessage ?? '';
    this.headers = new ResponseHeaders(message.rawHeaders);
    this.redirected = redirected;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return (await this.#bytes()).toString('utf8');
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  async #bytes(): Promise<Buffer> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    const chunks: Buffer[] = [];
    for await (const chunk of this.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

const abortError = (signal: AbortSignal): unknown =>
  signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new DOMException('This operation was aborted', 'AbortError');

/** The body as bytes, or undefined when it is of a kind this transport leaves to `fetch`. */
function bodyBytes(body: unknown): Buffer | string | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return false;
}

function outgoingHeaders(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!init) return headers;
  const pairs: Iterable<[string, string]> =
    init instanceof Headers || Array.isArray(init) ? (init as Iterable<[string, string]>) : Object.entries(init as Record<string, string>);
  for (const [name, value] of pairs) headers[name.toLowerCase()] = value;
  return headers;
}

function decoded(message: IncomingMessage): Readable {
  const encoding = message.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return message;
  message.on('error', (error) => decoder.destroy(error));
  return message.pipe(decoder);
}

interface Attempt {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Buffer | string | undefined;
}

/** Creates a fetch with its own keep-alive agents (one connection pool per origin). */
export function createNodeHttpFetch(): Fetch {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  const send = (attempt: Attempt, signal: AbortSignal | undefined): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const secure = attempt.url.protocol === 'https:';
      // Options rather than the URL: node's conversion of a URL (`urlToHttpOptions`) showed in profiles.
      const { hostname, port, pathname, search } = attempt.url;
      const request = (secure ? https.request : http.request)({
        host: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
        port: port || (secure ? 443 : 80),
        path: `${pathname}${search}`,
        method: attempt.method,
        headers: attempt.headers,
        agent: secure ? agents.https : agents.http,
      });
      const onAbort = (): void => {
        request.destroy(abortError(signal!) as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        const code = (error as NodeJS.ErrnoException).code;
        // A kept-alive connection the server had just closed: the request never reached it.
        const stale = request.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
        reject(signal?.aborted ? abortError(signal) : Object.assign(new TypeError('fetch failed', { cause: error }), stale ? { [STALE]: true } : {}));
      });
      request.on('response', (message) => {
        // From here an abort ends the body, not the request's promise.
        signal?.removeEventListener('abort', onAbort);
        if (signal) {
          const endBody = (): void => {
            message.destroy(abortError(signal) as Error);
          };
          signal.addEventListener('abort', endBody, { once: true });
          message.once('close', () => signal.removeEventListener('abort', endBody));
        }
        resolve(message);
      });
      request.end(attempt.body);
    });

  const nodeFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = bodyBytes(init.body);
    if (input instanceof Request || body === false) return fetch(input, init);
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    let attempt: Attempt = { url: new URL(input), method: (init.method ?? 'GET').toUpperCase(), headers: outgoingHeaders(init.headers), body };
    if (attempt.body !== undefined && attempt.headers['content-length'] === undefined)
      attempt.headers['content-length'] = String(Buffer.byteLength(attempt.body));
    for (let redirects = 0; ; redirects += 1) {
      // As node's documentation advises: a request lost on a stale kept-alive socket goes once more, on a new one.
      const message = await send(attempt, signal).catch((error: unknown) => {
        if (typeof error === 'object' && error !== null && STALE in error) return send(attempt, signal);
        throw error;
      });
      const status = message.statusCode ?? 0;
      const location = message.headers.location;
      if (REDIRECTS.has(status) && location && init.redirect !== 'manual') {
        message.resume();
        if (init.redirect === 'error' || redirects >= MAX_REDIRECTS)
          throw new TypeError('fetch failed', {
            cause: new Error(init.redirect === 'error' ? `unexpected redirect to ${location}` : 'redirect count exceeded'),
          });
        attempt = redirected(attempt, status, new URL(location, attempt.url));
        continue;
      }
      const response = new StreamedResponse(attempt.url.href, message, decoded(message), redirects > 0);
      if (response.ok || status < 400) return response as unknown as Response;
      // The rare path: a real Response, read whole, so error handling sees a standard object.
      return new Response(status === 204 ? null : await response.arrayBuffer(), { status, statusText: response.statusText, headers: [...response.headers] });
    }
  };
  return nodeFetch as Fetch;
}

function redirected(attempt: Attempt, status: number, url: URL): Attempt {
  const headers = { ...attempt.headers };
  if (url.origin !== attempt.url.origin) delete headers.authorization;
  // As fetch does: 303, and 301/302 after a POST, become a GET without a body.
  if (status === 303 || ((status === 301 || status === 302) && attempt.method === 'POST')) {
    delete headers['content-length'];
    delete headers['content-type'];
    return { url, method: 'GET', headers, body: undefined };
  }
  return { ...attempt, url, headers };
}

/** The transport models use when given none: one per process, like `fetch`'s own pool. */
export const nodeHttpFetch: Fetch = createNodeHttpFetch();
