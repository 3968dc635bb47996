/**
 * conversations.replies as Slack pages it (https://docs.slack.dev/reference/methods/conversations.replies):
 * the parent and its replies oldest first, within `oldest`/`latest` (exclusive unless `inclusive`),
 * `limit` at most (default and most 1,000), `has_more` and `response_metadata.next_cursor` when the
 * window holds more; a cursor continues the same window and its pages leave the parent out.
 */
import { stringField, type RequestFields } from './http-body.js';
import type { StoredMessage } from './message-store.js';

/** Slack's most (and default) messages per call. */
export const REPLIES_MAX_LIMIT = 1_000;

const micros = (ts: string): number => {
  const [seconds = '0', fraction = ''] = ts.split('.');
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
};

/** One page of `thread` (parent first, then replies oldest first) for the request `fields`. */
export function repliesPage(
  thread: readonly StoredMessage[],
  fields: RequestFields,
): { messages: StoredMessage[]; hasMore: boolean; nextCursor: string } | { error: string } {
  const inclusive = ['true', '1'].includes(String(fields.inclusive));
  const oldest = stringField(fields, 'oldest');
  const latest = stringField(fields, 'latest');
  const after = (ts: string) => oldest === undefined || (inclusive ? micros(ts) >= micros(oldest) : micros(ts) > micros(oldest));
  const before = (ts: string) => latest === undefined || (inclusive ? micros(ts) <= micros(latest) : micros(ts) < micros(latest));
  const window = thread.filter((message) => after(message.ts) && before(message.ts));
  const requested = fields.limit === undefined ? REPLIES_MAX_LIMIT : Number(fields.limit);
  if (!Number.isFinite(requested) || requested < 0) return { error: 'invalid_limit' };
  const limit = Math.min(REPLIES_MAX_LIMIT, Math.max(1, Math.floor(requested) || REPLIES_MAX_LIMIT));
  const cursor = stringField(fields, 'cursor');
  let start = 0;
  if (cursor) {
    const decoded = /^next_ts:(\d+\.\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!decoded) return { error: 'invalid_cursor' };
    start = window.findIndex((message) => micros(message.ts) >= micros(decoded[1]!));
    if (start < 0) start = window.length;
  }
  const parentTs = thread[0]?.ts;
  const page = window.slice(start, start + limit).filter((message, position) => start === 0 || position > 0 || message.ts !== parentTs);
  const next = window[start + limit];
  return { messages: page, hasMore: next !== undefined, nextCursor: next ? Buffer.from(`next_ts:${next.ts}`).toString('base64') : '' };
}
