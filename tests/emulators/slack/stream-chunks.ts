/**
 * The `chunks` of Slack's streaming methods, checked as Slack documents them: `markdown_text`
 * (text), `task_update` (id, title, status pending|in_progress|complete|error, optional details,
 * output, and sources — each `{type: "url", url, text}`, a source without text refused),
 * `plan_update` (title) and `blocks` (at most 50). `task_display_mode` on chat.startStream is
 * `timeline` or `plan`. A test can make the workspace refuse task and plan chunks, as one where
 * they are not available.
 * https://docs.slack.dev/reference/methods/chat.appendStream · https://docs.slack.dev/messaging/sending-and-scheduling-messages#text-streaming
 */
import type { RequestFields } from './http-body.js';

export type Chunk = Record<string, unknown>;
type Failure = { ok: false; error: string; detail?: string };

const STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const DISPLAY_MODES = new Set(['timeline', 'plan']);
const MARKDOWN_LIMIT = 12_000;

const fail = (detail: string, error = 'invalid_chunks'): Failure => ({ ok: false, error, detail });
const text = (value: unknown): value is string => typeof value === 'string' && value.trim().length > 0;

function checkChunk(chunk: unknown, index: number): Failure | undefined {
  if (typeof chunk !== 'object' || chunk === null) return fail(`chunks[${index}] is not an object`);
  const record = chunk as Chunk;
  switch (record.type) {
    case 'markdown_text':
      if (typeof record.text !== 'string') return fail(`chunks[${index}].text is required`);
      if (record.text.length > MARKDOWN_LIMIT) return fail(`chunks[${index}].text is too long`, 'msg_too_long');
      return undefined;
    case 'plan_update':
      return text(record.title) ? undefined : fail(`chunks[${index}].title is required`);
    case 'blocks':
      return Array.isArray(record.blocks) && record.blocks.length <= 50 ? undefined : fail(`chunks[${index}].blocks must be at most 50 blocks`);
    case 'task_update': {
      if (!text(record.id)) return fail(`chunks[${index}].id is required`);
      if (!text(record.title)) return fail(`chunks[${index}].title is required`);
      if (!STATUSES.has(String(record.status))) return fail(`chunks[${index}].status must be one of pending, in_progress, complete, error`);
      for (const field of ['details', 'output'] as const)
        if (record[field] !== undefined && typeof record[field] !== 'string') return fail(`chunks[${index}].${field} must be a string`);
      if (record.sources !== undefined) {
        if (!Array.isArray(record.sources)) return fail(`chunks[${index}].sources must be an array`);
        for (const [at, source] of (record.sources as unknown[]).entries()) {
          const entry = (source ?? {}) as Chunk;
          if (entry.type !== 'url' || typeof entry.url !== 'string' || !/^https?:\/\//.test(entry.url))
            return fail(`chunks[${index}].sources[${at}] must be {type: "url", url}`);
          if (!text(entry.text)) return fail(`chunks[${index}].sources[${at}].text is required`);
        }
      }
      return undefined;
    }
    default:
      return fail(`chunks[${index}].type "${String(record.type)}" is not a chunk type`);
  }
}

/**
 * The chunks of a call (its `markdown_text` as one `markdown_text` chunk), or why Slack refuses them.
 * `refusal`: the workspace does not take task or plan chunks.
 */
export function chunksOf(fields: RequestFields, options: { start: boolean; refusal?: string }): { ok: true; chunks: Chunk[] } | Failure {
  const markdown = fields.markdown_text;
  const chunks = fields.chunks;
  if (options.start && fields.task_display_mode !== undefined && !DISPLAY_MODES.has(String(fields.task_display_mode)))
    return fail('task_display_mode must be timeline or plan', 'invalid_arguments');
  if (chunks === undefined) {
    if (typeof markdown === 'string' && markdown.length > MARKDOWN_LIMIT) return fail('markdown_text is too long', 'msg_too_long');
    return { ok: true, chunks: typeof markdown === 'string' && markdown.length > 0 ? [{ type: 'markdown_text', text: markdown }] : [] };
  }
  if (markdown !== undefined) return fail('send markdown_text or chunks, not both', 'invalid_arguments');
  if (!Array.isArray(chunks) || chunks.length === 0) return fail('chunks must be a non-empty array');
  for (const [index, chunk] of chunks.entries()) {
    const problem = checkChunk(chunk, index);
    if (problem) return problem;
  }
  if (options.refusal && chunks.some((chunk) => (chunk as Chunk).type === 'task_update' || (chunk as Chunk).type === 'plan_update'))
    return { ok: false, error: options.refusal };
  return { ok: true, chunks: chunks as Chunk[] };
}

/** The text the chunks add to the message (their markdown). */
export const textOf = (chunks: Chunk[]): string =>
  chunks
    .filter((chunk) => chunk.type === 'markdown_text')
    .map((chunk) => chunk.text as string)
    .join('');
