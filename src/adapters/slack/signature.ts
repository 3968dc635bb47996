/**
 * Slack request signatures for HTTP mode: `v0=HMAC_SHA256(secret, "v0:" + ts + ":" + body)`.
 * Bolt checks this too but accepts timestamps from the future; this check refuses both stale and
 * future requests (5 minutes either way). The raw body is kept on the request for Bolt.
 * https://api.slack.com/authentication/verifying-requests-from-slack
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SLACK_SIGNATURE_MAX_SKEW_S = 300;
/** Event and interaction payloads are a few KB; 1 MB is far above any real one. */
export const SLACK_MAX_REQUEST_BYTES = 1024 * 1024;

export async function verifySlackSignature(
  request: IncomingMessage,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<{ ok: true } | { ok: false; reason: string }> {
  // Read at most what Slack ever sends before anything is verified: an unauthenticated client
  // must not make the bot buffer an unbounded body.
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > SLACK_MAX_REQUEST_BYTES) return { ok: false, reason: 'request too large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > SLACK_MAX_REQUEST_BYTES) {
      request.destroy();
      return { ok: false, reason: 'request too large' };
    }
    chunks.push(chunk as Buffer);
  }
  const rawBody = Buffer.concat(chunks);
  (request as IncomingMessage & { rawBody?: Buffer }).rawBody = rawBody;
  const timestamp = Number(request.headers['x-slack-request-timestamp']);
  const signature = String(request.headers['x-slack-signature'] ?? '');
  if (!Number.isInteger(timestamp)) return { ok: false, reason: 'missing timestamp' };
  if (Math.abs(nowSeconds - timestamp) > SLACK_SIGNATURE_MAX_SKEW_S)
    return { ok: false, reason: timestamp > nowSeconds ? 'timestamp in the future' : 'stale timestamp' };
  const expected = `v0=${createHmac('sha256', secret)
    .update(`v0:${timestamp}:${rawBody.toString('utf8')}`)
    .digest('hex')}`;
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: 'bad signature' };
  return { ok: true };
}
