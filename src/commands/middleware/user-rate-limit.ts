import type { Middleware } from './compose.js';
import { replyToUser } from './reply-to-user.js';

/**
 * A per-user token bucket: `perMinute` requests, refilled continuously. Button clicks are never
 * limited (approvals must always get through).
 */
export function userRateLimit(perMinute: number, now: () => number = Date.now): Middleware {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refillPerMs = perMinute / 60_000;
  return async (event, context, next) => {
    if (event.type === 'button-action') return next();
    const time = now();
    const bucket = buckets.get(event.user) ?? { tokens: perMinute, at: time };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (time - bucket.at) * refillPerMs);
    bucket.at = time;
    buckets.set(event.user, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return next();
    }
    const waitSeconds = Math.ceil((1 - bucket.tokens) / refillPerMs / 1000);
    await replyToUser(event, context, `You are sending requests faster than ${perMinute} a minute; try again in ${waitSeconds} s.`);
  };
}
