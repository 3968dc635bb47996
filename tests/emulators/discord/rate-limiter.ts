/**
 * Discord-style rate limits: fixed windows per key. Route buckets are announced in
 * `X-RateLimit-*` headers; the per-channel message limit is enforced on top of them and is
 * not announced (Discord's per-resource limits answer 429 with `X-RateLimit-Scope: shared`),
 * which is why a well-behaved client still meets real 429s when it bursts into one channel.
 */
import { createHash } from 'node:crypto';

/** The state of one window after a `take`. */
export interface WindowVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetAfterMs: number;
  /** Epoch milliseconds at which the window resets. */
  resetAt: number;
}

/** Counts requests per key in fixed windows that start at a key's first request. */
export interface WindowLimiter {
  take(key: string): WindowVerdict;
  reset(): void;
}

/** Creates a fixed-window limiter of `limit` requests per `windowMs`. */
export function createWindowLimiter(limit: number, windowMs: number, now: () => number = Date.now): WindowLimiter {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    take(key) {
      const at = now();
      let window = windows.get(key);
      if (!window || at - window.startedAt >= windowMs) {
        window = { startedAt: at, count: 0 };
        windows.set(key, window);
      }
      const resetAt = window.startedAt + windowMs;
      const allowed = window.count < limit;
      if (allowed) window.count += 1;
      return { allowed, limit, remaining: Math.max(0, limit - window.count), resetAfterMs: resetAt - at, resetAt };
    },
    reset() {
      windows.clear();
    },
  };
}

/** Rate-limit settings of the emulator. */
export interface RateLimitSettings {
  enabled: boolean;
  messagesPerChannelPer5s: number;
}

/** What a request looks like to the limiter. */
export interface RateLimitedRequest {
  method: string;
  /** The route template (`/channels/:channelId/messages`), or the raw path for unknown routes. */
  route: string;
  /** The major parameter's value (channel, guild or webhook id), '' when none. */
  majorParameter: string;
  /** The channel a message create/edit lands in; undefined when the request is not one. */
  messageChannelId: string | undefined;
}

/** The decision for one request: headers to send, and a 429 when refused. */
export interface RateLimitDecision {
  headers: Record<string, string>;
  refused?: { scope: 'shared' | 'user'; retryAfterMs: number; bucket: string };
}

/** Route buckets announced to clients: generous, close to the global 50 requests per second. */
export const ROUTE_BUCKET_LIMIT = 50;
export const ROUTE_BUCKET_WINDOW_MS = 1000;
export const CHANNEL_MESSAGE_WINDOW_MS = 5000;

/** The emulator's REST limiter: route buckets plus the per-channel message limit. */
export interface RestRateLimiter {
  check(request: RateLimitedRequest): RateLimitDecision;
}

/** Creates the REST limiter. With `enabled: false` headers are still sent but nothing is refused. */
export function createRestRateLimiter(settings: RateLimitSettings, now: () => number = Date.now): RestRateLimiter {
  const routes = createWindowLimiter(ROUTE_BUCKET_LIMIT, ROUTE_BUCKET_WINDOW_MS, now);
  const channels = createWindowLimiter(settings.messagesPerChannelPer5s, CHANNEL_MESSAGE_WINDOW_MS, now);
  return {
    check(request) {
      const bucket = bucketHash(`${request.method} ${request.route}`);
      const verdict = routes.take(`${bucket}:${request.majorParameter}`);
      const headers = {
        'X-RateLimit-Limit': String(verdict.limit),
        'X-RateLimit-Remaining': String(verdict.remaining),
        'X-RateLimit-Reset': (verdict.resetAt / 1000).toFixed(3),
        'X-RateLimit-Reset-After': (verdict.resetAfterMs / 1000).toFixed(3),
        'X-RateLimit-Bucket': bucket,
      };
      if (!settings.enabled) return { headers };
      if (!verdict.allowed) {
        return { headers, refused: { scope: 'user', retryAfterMs: verdict.resetAfterMs, bucket } };
      }
      if (request.messageChannelId !== undefined) {
        const channel = channels.take(request.messageChannelId);
        if (!channel.allowed) {
          return { headers, refused: { scope: 'shared', retryAfterMs: channel.resetAfterMs, bucket } };
        }
      }
      return { headers };
    },
  };
}

/** The headers and body of a 429 as Discord sends them. */
export function tooManyRequests(refused: NonNullable<RateLimitDecision['refused']>): {
  headers: Record<string, string>;
  body: { message: string; retry_after: number; global: boolean };
} {
  const seconds = refused.retryAfterMs / 1000;
  return {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(seconds))), 'X-RateLimit-Scope': refused.scope },
    body: { message: 'You are being rate limited.', retry_after: Number(seconds.toFixed(3)), global: false },
  };
}

function bucketHash(key: string): string {
  return createHash('md5').update(key).digest('hex');
}
