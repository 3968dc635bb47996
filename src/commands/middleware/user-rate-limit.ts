import Bottleneck from 'bottleneck';
import type { Middleware } from './compose.js';
import { replyToUser } from './reply-to-user.js';
import type { Coordination } from '../../core/coordination/coordination.js';
import { TURN_STARTING_ACTIONS } from '../action-ids.js';

/**
 * A per-user budget of `perMinute` requests, one back every `60 / perMinute` s. Button clicks are
 * never limited (approvals must always get through), but for the menus that start a turn (Ask
 * another character, Re-run), which count as a message does. One process: a Bottleneck limiter per
 * user (a reservoir refilled by one at a time; a request that finds it empty is dropped, not
 * queued, and told when to retry — decision 16). With replicas the bucket is kept in Redis through
 * the coordination, so a user's limit is the same however Slack spreads their events.
 */
export function userRateLimit(perMinute: number, coordination?: Coordination): Middleware {
  const refillMs = Math.ceil(60_000 / perMinute);
  const users = new Bottleneck.Group({
    reservoir: perMinute,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: refillMs,
    reservoirIncreaseMaximum: perMinute,
    // Never queue: a request over the budget is refused at once.
    highWater: 0,
    strategy: Bottleneck.strategy.OVERFLOW,
  });
  const tooFast = (seconds: number) => `You are sending requests faster than ${perMinute} a minute; try again in ${seconds} s.`;
  return async (event, context, next) => {
    if (event.type === 'button-action' && !TURN_STARTING_ACTIONS.has(event.actionId)) return next();
    if (coordination?.shared) {
      const waitMs = await coordination
        .takeToken(`user:${event.user}`, { kind: 'bucket', capacity: perMinute, perSecond: perMinute / 60 })
        // Redis unreachable: the request goes through rather than being refused for our fault.
        .catch(() => 0);
      if (waitMs <= 0) return next();
      await replyToUser(event, context, tooFast(Math.ceil(waitMs / 1000)));
      return;
    }
    const admitted = await users
      .key(event.user)
      .schedule(() => Promise.resolve(true))
      .catch((error: unknown) => {
        if (error instanceof Bottleneck.BottleneckError) return false;
        throw error;
      });
    if (admitted) return next();
    await replyToUser(event, context, tooFast(Math.ceil(refillMs / 1000)));
  };
}
