/**
 * The playground's HTTP routes, mounted on the app's server (127.0.0.1 only): the page and its two
 * assets, a server-sent event stream of every change, the JSON API the page posts to, file
 * downloads and the model status. Every request must name this server in `Host` (a DNS-rebinding
 * guard); every POST must be JSON from this origin (a plain cross-site form cannot send that).
 * Every API route (all but the page's static files) also needs this start's access key in the
 * `x-tsuka-key` header (access-key.ts): a local script — an agent's command — can reach the port
 * and fetch the page, but not the key, which only the link printed by `tsuka start` carries.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/logger.js';
import { ACCESS_KEY_HEADER, checkAccessKey } from './access-key.js';
import type { InputResult } from './events.js';
import { PLAYGROUND_MAX_MESSAGE_BODY_BYTES } from './attachments.js';
import { sendFile } from './file-route.js';
import { CHANNEL_ID_PATTERN } from './ids.js';
import type { InputLimiter } from './rate-limits.js';
import type { PlaygroundState } from './state.js';

/** Same shape as the app server's route handler; adapters do not import from src/app. */
export type PlaygroundRouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

export const PLAYGROUND_MAX_BODY_BYTES = 64 * 1024;
const SSE_HEARTBEAT_MS = 20_000;
const WEB_DIRECTORY = new URL('./web/', import.meta.url);

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/thread-pane.css': { file: 'thread-pane.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
  '/attachments.js': { file: 'attachments.js', type: 'text/javascript; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};
// Defence in depth behind the escaping: no inline script, nothing from another origin (blob: are
// the page's own pictures, fetched with the access key).
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface PlaygroundRoutesOptions {
  state: PlaygroundState;
  input: { message(body: unknown): InputResult; action(body: unknown): InputResult };
  modelStatus: () => { ok: boolean; message: string };
  limiter: InputLimiter;
  logger: Logger;
  /** This start's access key (access-key.ts): every API request must carry it. */
  accessKey: string;
}

export function createPlaygroundRoutes(options: PlaygroundRoutesOptions): { routes: Record<string, PlaygroundRouteHandler>; closeStreams(): void } {
  const { state, logger } = options;
  const streams = new Set<ServerResponse>();
  const assetCache = new Map<string, Promise<Buffer>>();

  /** `open`: the page's static files, the same for everyone (they hold no key and no chat). */
  const guarded =
    (handler: (request: IncomingMessage, response: ServerResponse) => Promise<void> | void, access: 'key' | 'open' = 'key'): PlaygroundRouteHandler =>
    (request, response) => {
      const refusal = refuse(request) ?? (access === 'key' ? checkAccessKey(request.headers[ACCESS_KEY_HEADER], options.accessKey) : undefined);
      if (refusal) {
        logger.warn('playground request refused', { reason: refusal.reason, host: request.headers.host, url: request.url });
        sendJson(response, refusal.status, { ok: false, error: refusal.reason });
        return;
      }
      Promise.resolve()
        .then(() => handler(request, response))
        .catch((error: unknown) => {
          logger.error('playground request failed', { error, url: request.url });
          if (!response.headersSent) sendJson(response, 500, { ok: false, error: 'the playground failed on this request; see the bot log' });
          else response.end();
        });
    };

  const post = (answer: (body: unknown) => InputResult | Promise<InputResult>, maxBytes = PLAYGROUND_MAX_BODY_BYTES) =>
    guarded(async (request, response) => {
      if (!options.limiter.tryTake()) return sendJson(response, 429, { ok: false, error: 'too many requests; slow down' });
      const body = await readJsonBody(request, maxBytes);
      if (!body.ok) return sendJson(response, body.status, { ok: false, error: body.error });
      const result = await answer(body.value);
      sendJson(response, result.status, result.body);
    });

  const asset = (path: string) =>
    guarded(async (_request, response) => {
      const { file, type } = ASSETS[path]!;
      if (!assetCache.has(file)) assetCache.set(file, readFile(new URL(file, WEB_DIRECTORY)));
      const content = await assetCache.get(file)!;
      response
        .writeHead(200, {
          ...SECURITY_HEADERS,
          'content-type': type,
          ...(file.endsWith('.html') ? { 'content-security-policy': CONTENT_SECURITY_POLICY } : {}),
        })
        .end(content);
    }, 'open');

  const events = guarded((request, response) => {
    response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    response.write(`retry: 1000\n\nevent: snapshot\ndata: ${JSON.stringify(state.snapshot())}\n\n`);
    streams.add(response);
    const unsubscribe = state.subscribe((change) => response.write(`event: change\ndata: ${JSON.stringify(change)}\n\n`));
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    heartbeat.unref();
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(response);
    });
  });

  return {
    routes: {
      'GET /': asset('/'),
      'GET /app.js': asset('/app.js'),
      'GET /attachments.js': asset('/attachments.js'),
      'GET /style.css': asset('/style.css'),
      'GET /thread-pane.css': asset('/thread-pane.css'),
      'GET /favicon.svg': asset('/favicon.svg'),
      'GET /favicon.ico': asset('/favicon.svg'),
      'GET /events': events,
      'GET /api/state': guarded((_request, response) => sendJson(response, 200, state.snapshot())),
      'GET /api/status': guarded((_request, response) => sendJson(response, 200, options.modelStatus())),
      'GET /api/files': guarded((request, response) => sendFile(state, request, response, SECURITY_HEADERS)),
      'POST /api/messages': post((body) => options.input.message(body), PLAYGROUND_MAX_MESSAGE_BODY_BYTES),
      'POST /api/actions': post((body) => options.input.action(body)),
      'POST /api/ephemerals/dismiss': post((body) => {
        const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
        if (typeof id !== 'string' || !state.dismissEphemeral(id)) return { status: 404, body: { ok: false, error: 'no such note' } };
        return { status: 200, body: { ok: true } };
      }),
      'POST /api/channels': post((body) => {
        const name = typeof body === 'object' && body !== null ? (body as { name?: unknown }).name : undefined;
        const id = typeof name === 'string' ? name.trim().replace(/^#/, '').toLowerCase() : '';
        if (!CHANNEL_ID_PATTERN.test(id)) return { status: 400, body: { ok: false, error: 'a channel name is 1–40 lower-case letters, digits or dashes' } };
        return { status: 200, body: { ok: true, channel: state.addChannel(id) } };
      }),
    },
    closeStreams() {
      for (const stream of streams) stream.end();
      streams.clear();
    },
  };
}

/** Why a request is refused before any handler runs, or undefined when it may go on. */
function refuse(request: IncomingMessage): { status: number; reason: string } | undefined {
  // One local user with no login: only this machine may drive it, even if the server listens more widely.
  if (!isLoopback(request.socket.remoteAddress)) return { status: 403, reason: 'the playground only answers this machine (127.0.0.1): it has no login' };
  const port = request.socket.localPort;
  const host = request.headers.host ?? '';
  // A page from another site that rebinds its DNS name to 127.0.0.1 still sends its own name here.
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
    return { status: 403, reason: 'unexpected Host header: open the playground at http://127.0.0.1:<port>/' };
  if (request.method !== 'POST') return undefined;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) return { status: 403, reason: 'cross-origin requests are not accepted' };
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { status: 415, reason: 'send JSON (content-type: application/json)' };
  return undefined;
}

async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<{ ok: true; value: unknown } | { ok: false; status: number; error: string }> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) return { ok: false, status: 413, error: `the request is larger than ${maxBytes} bytes` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return { ok: false, status: 413, error: `the request is larger than ${maxBytes} bytes` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch (error) {
    return { ok: false, status: 400, error: `the body is not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return plain === '::1' || /^127\.\d+\.\d+\.\d+$/.test(plain);
}
