/**
 * The emulator's HTTP surface: `/api/<method>` (Web API), `/upload/<file id>` (the external upload
 * URL of files.getUploadURLExternal) and `/response/<id>` (slash-command and action response_urls).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFields, parseMultipart, readRawBody, readToken, type RequestFields } from './http-body.js';
import type { MessageStore } from './message-store.js';
import type { WebApi } from './web-api.js';

/** One Web API call as the emulator saw it. */
export interface RecordedCall {
  method: string;
  body: RequestFields;
  at: number;
  status: number;
  response: Record<string, unknown>;
}

/** A call refused with HTTP 429. */
export interface RateLimitedCall {
  method: string;
  channel?: string;
  retryAfterSeconds: number;
  at: number;
  body: RequestFields;
}

/** Slack accepts up to five posts per response_url. */
export const RESPONSE_URL_MAX_USES = 5;

/** Where routed requests are recorded. */
export interface RouteSinks {
  webApi: WebApi;
  store: MessageStore;
  calls: RecordedCall[];
  rateLimited: RateLimitedCall[];
  /** response_url ids handed out, with how many posts each has taken. */
  responseUrls: Map<string, number>;
  changed: () => void;
  botToken: string;
  scopes: () => readonly string[];
  /** Every request of a private file URL, with whether it carried the bot token. */
  fileRequests: FileRequest[];
}

/** A request of a private file URL (`/files-pri/…`). */
export interface FileRequest {
  path: string;
  authorized: boolean;
  at: number;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

async function uploadBytes(request: IncomingMessage, raw: Buffer): Promise<Buffer> {
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) return raw;
  const fields = await parseMultipart(raw, contentType);
  const file = Object.values(fields).find((value): value is Buffer => Buffer.isBuffer(value));
  return file ?? Buffer.from(Object.values(fields).map(String).join(''));
}

/** Handles one HTTP request; unknown paths get 404. */
export async function routeRequest(request: IncomingMessage, response: ServerResponse, sinks: RouteSinks): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const raw = await readRawBody(request);
  const [, section = '', name = ''] = url.pathname.split('/');

  if (section === 'api' && name) {
    const fields = await parseFields(raw, request.headers['content-type'], url.searchParams);
    const result = sinks.webApi.call(name, fields, readToken(request.headers.authorization, fields));
    const at = Date.now();
    if (result.rateLimit) sinks.rateLimited.push({ method: name, ...result.rateLimit, at, body: fields });
    sinks.calls.push({ method: name, body: fields, at, status: result.status, response: result.body });
    sendJson(response, result.status, result.body, result.headers);
    sinks.changed();
    return;
  }
  if (section === 'upload' && name) {
    const accepted = sinks.webApi.receiveUpload(name, await uploadBytes(request, raw));
    response.writeHead(accepted ? 200 : 404, { 'content-type': 'text/plain' });
    response.end(accepted ? `OK - ${raw.length}` : 'file_not_found');
    sinks.changed();
    return;
  }
  if (section === 'files-pri' && name) {
    // Slack serves a private file to a token that may read files; to anyone else a sign-in page (200, HTML), not an error.
    const shared = sinks.store.sharedFiles.get(name.split('-').pop() ?? '');
    const authorized = request.headers.authorization === `Bearer ${sinks.botToken}` && sinks.scopes().includes('files:read');
    sinks.fileRequests.push({ path: url.pathname, authorized, at: Date.now() });
    if (shared?.redirectTo) {
      response.writeHead(302, { location: shared.redirectTo }).end();
    } else if (shared && authorized) {
      response.writeHead(200, { 'content-type': shared.mimetype, 'content-length': String(shared.bytes.length) });
      response.end(shared.bytes);
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to your workspace</body></html>');
    }
    sinks.changed();
    return;
  }
  if (section === 'response' && name && sinks.responseUrls.has(name)) {
    const uses = sinks.responseUrls.get(name) ?? 0;
    if (uses >= RESPONSE_URL_MAX_USES) {
      sendJson(response, 404, { ok: false, error: 'used_url' });
      return;
    }
    sinks.responseUrls.set(name, uses + 1);
    const text = raw.toString('utf8');
    const body: unknown = (request.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text;
    sinks.store.responses.push({ id: name, body, at: Date.now() });
    sendJson(response, 200, { ok: true });
    sinks.changed();
    return;
  }
  sendJson(response, 404, { ok: false, error: 'not_found', path: url.pathname });
}
