import type { Middleware } from './compose.js';
import { replyToUser } from './reply-to-user.js';
import type { Coordination } from '../../core/coordination/coordination.js';
import { TURN_STARTING_ACTIONS } from '../action-ids.js';

/**
 * A per-user token bucket: `perMinute` requests, refilled continuously. Button clicks are never
 * limited (approvals must always get through), but for the menus that start a turn (Ask another
 * character, Re-run), which count as a message does. With replicas the bucket is kept in Redis, so a
 * user's limit is the same however Slack spreads their events.
 */
export function userRateLimit(perMinute: number, now: () => number = Date.now, coordination?: Coordination): Middleware {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refillPerMs = perMinute / 60_000;
  return async (event, context, next) => {
    if (event.type === 'button-action' && !TURN_STARTING_ACTIONS.has(event.actionId)) return next();
    if (coordination?.shared) {
      const waitMs = await coordination
        .takeToken(`user:${event.user}`, { kind: 'bucket', capacity: perMinute, perSecond: perMinute / 60 })
        // Redis unreachable: the request goes through rather than being refused for our fault.
        .catch(() => 0);
      if (waitMs <= 0) return next();
      await replyToUser(event, context, `You are sending requests faster than ${perMinute} a minute; try again in ${Math.ceil(waitMs / 1000)} s.`);
      return;
    }
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
