/**
 * Reading Web API requests the way Slack does: JSON, form-urlencoded (JSON-valued fields such as
 * `blocks` arrive as strings) or multipart; the token in `Authorization: Bearer` or a `token` field.
 */
import type { IncomingMessage } from 'node:http';

/** Fields whose form-encoded value is a JSON document. */
const JSON_FIELDS = ['blocks', 'attachments', 'files', 'metadata', 'chunks'];

/** A parsed request body: field name → string, number, boolean, Buffer (multipart file) or parsed JSON. */
export type RequestFields = Record<string, unknown>;

/** Reads the whole request body. */
export async function readRawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** Parses a multipart/form-data body with the platform's own parser. */
export async function parseMultipart(raw: Buffer, contentType: string): Promise<RequestFields> {
  const form = await new Request('http://127.0.0.1/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(raw),
  }).formData();
  const fields: RequestFields = {};
  for (const [name, value] of form.entries()) {
    fields[name] = typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer());
  }
  return fields;
}

/** Parses a body of any content type Slack accepts, plus query-string fields. */
export async function parseFields(raw: Buffer, contentType: string | undefined, query: URLSearchParams): Promise<RequestFields> {
  const fields: RequestFields = Object.fromEntries(query.entries());
  const type = (contentType ?? '').toLowerCase();
  if (raw.length > 0) {
    if (type.startsWith('application/json')) {
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) Object.assign(fields, parsed);
    } else if (type.startsWith('multipart/form-data')) {
      Object.assign(fields, await parseMultipart(raw, contentType ?? ''));
    } else {
      Object.assign(fields, Object.fromEntries(new URLSearchParams(raw.toString('utf8')).entries()));
    }
  }
  for (const name of JSON_FIELDS) {
    const value = fields[name];
    // A value that is not JSON stays a string: the method handler reports it as Slack would.
    if (typeof value === 'string') fields[name] = parseJsonOr(value, value);
  }
  return fields;
}

function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) return fallback;
    throw error;
  }
}

/** The token of a request: the Bearer header wins over a `token` field, as in Slack. */
export function readToken(authorization: string | undefined, fields: RequestFields): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (match?.[1]) return match[1].trim();
  return typeof fields.token === 'string' ? fields.token : undefined;
}

/** A field as a non-empty string (numbers are accepted: form clients send ts values either way). */
export function stringField(fields: RequestFields, name: string): string | undefined {
  const value = fields[name];
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
