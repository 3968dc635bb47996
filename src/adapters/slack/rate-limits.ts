/**
 * Every Slack Web API call goes through here: `chat.postMessage` per channel (a small burst, then
 * about one a second), `chat.update` per workspace (Tier 3, ~50 a minute), other methods lightly
 * spaced. A 429 pauses that bucket for `Retry-After` seconds and the call is tried again, so a
 * rate limit never reaches a user.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from '../../core/logger.js';

export interface SlackRateLimits {
  postBurst: number;
  postsPerSecondPerChannel: number;
  updatesPerMinute: number;
  /** Attempts after a 429 before giving up. */
  maxRateLimitRetries: number;
}

export const SLACK_DEFAULT_RATE_LIMITS: SlackRateLimits = {
  postBurst: 4,
  postsPerSecondPerChannel: 1,
  updatesPerMinute: 50,
  maxRateLimitRetries: 5,
};

interface RateLimitedError {
  code?: string;
  retryAfter?: number;
}

export interface SlackCallLimiter {
  schedule<T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T>;
  /** How many 429s were absorbed (for the benchmark and tests). */
  readonly rateLimitedCount: number;
  stop(): Promise<void>;
}

function bucket(burst: number, perSecond: number): Bottleneck.ConstructorOptions {
  const intervalMs = Math.max(1, Math.round(1000 / perSecond));
  return {
    maxConcurrent: 1,
    reservoir: burst,
    reservoirIncreaseAmount: 1,
    reservoirIncreaseInterval: intervalMs,
    reservoirIncreaseMaximum: burst,
  };
}

export function createSlackCallLimiter(limits: SlackRateLimits, logger: Logger): SlackCallLimiter {
  const posts = new Bottleneck.Group(bucket(limits.postBurst, limits.postsPerSecondPerChannel));
  const updates = new Bottleneck(bucket(Math.max(1, Math.round(limits.updatesPerMinute / 5)), limits.updatesPerMinute / 60));
  const others = new Bottleneck({ maxConcurrent: 4, minTime: 50 });
  let rateLimitedCount = 0;

  const limiterFor = (method: string, channel: string | undefined): Bottleneck =>
    method === 'chat.postMessage' ? posts.key(channel ?? '_') : method === 'chat.update' ? updates : others;

  async function schedule<T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T> {
    const limiter = limiterFor(method, channel);
    for (let attempt = 0; ; attempt++) {
      try {
        return await limiter.schedule(call);
      } catch (error) {
        const limited = error as RateLimitedError;
        if (limited?.code !== 'slack_webapi_rate_limited_error' || attempt >= limits.maxRateLimitRetries) throw error;
        rateLimitedCount++;
        const waitMs = Math.max(1, limited.retryAfter ?? 1) * 1000;
        logger.warn('Slack rate limit: waiting Retry-After', { method, channel, waitMs });
        // Drain the bucket so queued calls of the same kind wait too. A limiter without a reservoir
        // must keep none: setting it to 0 would stop it for good.
        const reservoir = await limiter.currentReservoir();
        if (reservoir !== null) await limiter.incrementReservoir(-reservoir);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  return {
    schedule,
    get rateLimitedCount() {
      return rateLimitedCount;
    },
    async stop() {
      await Promise.all([updates.stop({ dropWaitingJobs: true }), others.stop({ dropWaitingJobs: true }), ...posts.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true }))]);
    },
  };
}
