/**
 * The REST front door under `/api/v10`: routing, bot-token auth, rate-limit headers and 429s,
 * Discord's error bodies, and a record of every call. A 204 carries no content-type (the
 * discord.js REST client would try to parse an empty JSON body).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DiscordApiError, asRecord, matchRoute, readBody, type Route, type RouteContext, type RouteResult } from './http-kit.js';
import { tooManyRequests, type RestRateLimiter } from './rate-limiter.js';
import type { Recorder, RestCallRecord } from './records.js';

const API_PREFIX = '/api/v10';

/** What the REST handler needs. */
export interface RestServerSettings {
  routes: Route[];
  recorder: Recorder;
  limiter: RestRateLimiter;
  botToken: string;
  /** The status a fault window imposes on this call now (a 5xx outage), if any. */
  faultFor?: (method: string, path: string) => number | undefined;
  /** An attachment's bytes by id (the CDN). */
  attachment?: (id: string) => { contentType: string; bytes: Buffer } | undefined;
}

/** Creates the `request` listener of the emulator's HTTP server. */
export function createRestHandler(settings: RestServerSettings): (request: IncomingMessage, response: ServerResponse) => void {
  const { recorder } = settings;
  return (request, response) => {
    handle(settings, request, response).catch((error: unknown) => {
      // Reaching here means the handler itself broke: answer 500 and keep the reason in the log.
      if (!response.headersSent) writeJson(response, 500, { message: '500: Internal Server Error', code: 0 }, {});
      recorder.calls.push({
        method: request.method ?? 'GET',
        path: request.url ?? '',
        query: {},
        body: undefined,
        authorized: false,
        status: 500,
        error: error instanceof Error ? error.message : String(error),
        at: Date.now(),
      });
      recorder.changed();
    });
  };
}

async function handle(settings: RestServerSettings, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? 'GET';
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const inApi = url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`);
  const path = inApi ? url.pathname.slice(API_PREFIX.length) : url.pathname;
  const segments = path.split('/').filter(Boolean).map(safeDecode);
  if (!inApi && method === 'GET' && segments[0] === 'attachments' && settings.attachment) {
    // The CDN: an attachment's URL is its own credential; no Authorization header is needed.
    const file = settings.attachment(segments[2] ?? '');
    settings.recorder.calls.push({
      method,
      path: url.pathname,
      query: {},
      body: undefined,
      authorized: request.headers.authorization !== undefined,
      status: file ? 200 : 404,
      at: Date.now(),
    });
    settings.recorder.changed();
    if (!file) return writeEmpty(response, 404, {});
    response.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.bytes.length });
    response.end(file.bytes);
    return;
  }
  const decodedPath = `/${segments.join('/')}`;
  const match = inApi ? matchRoute(settings.routes, method, segments) : undefined;
  const call: RestCallRecord = {
    method,
    path: decodedPath,
    query: Object.fromEntries(url.searchParams),
    body: undefined,
    authorized: request.headers.authorization !== undefined,
    status: 0,
    at: Date.now(),
  };
  const finish = (result: RouteResult, headers: Record<string, string>, error?: string): void => {
    call.status = result.status;
    if (error !== undefined) call.error = error;
    settings.recorder.calls.push(call);
    settings.recorder.changed();
    if (result.body === undefined) writeEmpty(response, result.status, headers);
    else writeJson(response, result.status, result.body, headers);
  };

  let parsed;
  try {
    parsed = await readBody(request);
  } catch (error) {
    if (error instanceof DiscordApiError) return finish({ status: error.status, body: error.body() }, {});
    throw error;
  }
  call.body = parsed.json;
  const context: RouteContext = {
    method,
    path: decodedPath,
    params: match?.params ?? {},
    query: url.searchParams,
    body: asRecord(parsed.json),
    rawBody: parsed.json,
    files: parsed.files,
  };
  const route = match?.route;
  const majorName = route?.major;
  const decision = settings.limiter.check({
    method,
    route: route?.pattern ?? decodedPath,
    majorParameter: majorName === undefined ? '' : (context.params[majorName] ?? ''),
    messageChannelId: route?.messageChannel?.(context),
  });
  const headers = decision.headers;

  if (!route) {
    const otherMethod = inApi && settings.routes.some((candidate) => matchRoute([candidate], candidate.method, segments));
    if (otherMethod) return finish({ status: 405, body: { message: '405: Method Not Allowed', code: 0 } }, headers);
    return finish({ status: 404, body: { message: '404: Not Found', code: 0 } }, headers);
  }
  if (route.auth === 'bot' && request.headers.authorization !== `Bot ${settings.botToken}`) {
    return finish({ status: 401, body: { message: '401: Unauthorized', code: 0 } }, headers);
  }
  const fault = settings.faultFor?.(method, decodedPath);
  if (fault !== undefined) return finish({ status: fault, body: { message: `${fault}: Internal Server Error`, code: 0 } }, {}, 'fault window');
  if (decision.refused) {
    const limited = tooManyRequests(decision.refused);
    settings.recorder.rateLimited.push({
      method,
      path: decodedPath,
      bucket: decision.refused.bucket,
      scope: decision.refused.scope,
      retryAfterMs: decision.refused.retryAfterMs,
      at: Date.now(),
    });
    return finish({ status: 429, body: limited.body }, { ...headers, ...limited.headers });
  }
  try {
    finish(await route.handle(context), headers);
  } catch (error) {
    if (error instanceof DiscordApiError) return finish({ status: error.status, body: error.body() }, headers, error.message);
    throw error;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // A malformed escape is kept as sent; the route simply will not match it.
    return segment;
  }
}

function writeJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function writeEmpty(response: ServerResponse, status: number, headers: Record<string, string>): void {
  response.writeHead(status, headers);
  response.end();
}
