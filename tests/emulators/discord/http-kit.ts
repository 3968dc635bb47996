/**
 * Small HTTP pieces shared by the REST routes: Discord's error bodies, body parsing (JSON and
 * multipart with `payload_json` + `files[n]`), field readers for untrusted bodies, and a
 * path-pattern router.
 */
import type { IncomingMessage } from 'node:http';
import type { RecordedFile } from './state.js';

/** A Discord API error: the HTTP status and the JSON body Discord sends with it. */
export class DiscordApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DiscordApiError';
  }

  body(): Record<string, unknown> {
    return this.errors === undefined ? { message: this.message, code: this.code } : { message: this.message, code: this.code, errors: this.errors };
  }
}

/** 400 Invalid Form Body with one field error, shaped as Discord nests them. */
export function invalidFormBody(field: string, code: string, message: string): DiscordApiError {
  return new DiscordApiError(400, 50035, 'Invalid Form Body', { [field]: { _errors: [{ code, message }] } });
}

export const unknownChannel = (): DiscordApiError => new DiscordApiError(404, 10003, 'Unknown Channel');
export const unknownMessage = (): DiscordApiError => new DiscordApiError(404, 10008, 'Unknown Message');
export const unknownWebhook = (): DiscordApiError => new DiscordApiError(404, 10015, 'Unknown Webhook');
export const missingPermissions = (): DiscordApiError => new DiscordApiError(403, 50013, 'Missing Permissions');

/** A parsed request body. */
export interface ParsedBody {
  /** The JSON body (or `payload_json`), `undefined` when there was none. */
  json: unknown;
  files: RecordedFile[];
}

/** Reads and parses a request body; malformed JSON becomes Discord's 50109 error. */
export async function readBody(request: IncomingMessage): Promise<ParsedBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const contentType = request.headers['content-type'] ?? '';
  if (raw.length === 0) return { json: undefined, files: [] };
  if (contentType.startsWith('multipart/form-data')) return parseMultipart(raw, contentType);
  return { json: parseJson(raw.toString('utf8')), files: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw Object.assign(new DiscordApiError(400, 50109, 'The request body contains invalid JSON.'), { cause: error });
  }
}

// The platform's own multipart parser (undici's Response) avoids a hand-written one.
async function parseMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  let json: unknown;
  const files: RecordedFile[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') json = parseJson(value);
      continue;
    }
    files.push({ field, filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
  }
  return { json, files };
}

/** Treats an untrusted body as a record; anything else becomes an empty one. */
export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === 'string' ? value : undefined;
}

export function numberField(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  return typeof value === 'number' ? value : undefined;
}

export function arrayField(body: Record<string, unknown>, key: string): unknown[] | undefined {
  const value = body[key];
  return Array.isArray(value) ? value : undefined;
}

/** What a route handler sees. */
export interface RouteContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  /** The raw body, for routes that take an array (`PUT …/commands`). */
  rawBody: unknown;
  files: RecordedFile[];
}

/** A route's answer; `body: undefined` means 204 No Content. */
export interface RouteResult {
  status: number;
  body?: unknown;
}

/** A REST route. */
export interface Route {
  method: string;
  /** Path below `/api/v10`, `:name` for parameters (`/channels/:channelId/messages`). */
  pattern: string;
  /** Bot-token routes need `Authorization: Bot <token>`; webhook-token and interaction routes do not. */
  auth: 'bot' | 'none';
  /** The rate-limit major parameter's name (`channelId`, `guildId`, `webhookId`). */
  major?: string;
  /** The channel a message create/edit lands in, for the per-channel limit. */
  messageChannel?: (context: RouteContext) => string | undefined;
  handle(context: RouteContext): RouteResult | Promise<RouteResult>;
}

/** Finds the route for a method and path; `undefined` when none matches. */
export function matchRoute(routes: Route[], method: string, segments: string[]): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.pattern.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const segment = segments[index] ?? '';
      if (part.startsWith(':')) {
        params[part.slice(1)] = segment;
        return true;
      }
      return part === segment;
    });
    if (matches) return { route, params };
  }
  return undefined;
}
