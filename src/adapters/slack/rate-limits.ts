/**
 * Every Slack Web API call goes through here: `chat.postMessage` per channel (a small burst, then
 * about one a second), `chat.update` per workspace (Tier 3, ~50 a minute), other methods lightly
 * spaced. A 429 pauses that bucket for `Retry-After` seconds and the call is tried again; a 5xx or
 * a network error is tried again with backoff. Both give up only after the retry budget (60 s by
 * default, `retryDelivery`), so a short outage of Slack never costs a reply.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from '../../core/logger.js';
import { DELIVERY_RETRY_BUDGET_MS, retryWithinBudget, type RetryVerdict } from '../../commands/delivery-retry.js';
import { reportedCall } from '../shared/platform-calls.js';

export interface SlackRateLimits {
  postBurst: number;
  postsPerSecondPerChannel: number;
  updatesPerMinute: number;
  /** How long one call is retried (429, 5xx, network errors) before it fails. */
  retryBudgetMs: number;
}

export const SLACK_DEFAULT_RATE_LIMITS: SlackRateLimits = {
  postBurst: 4,
  postsPerSecondPerChannel: 1,
  updatesPerMinute: 50,
  retryBudgetMs: DELIVERY_RETRY_BUDGET_MS,
};

interface SlackClientError {
  code?: string;
  /** Seconds, on `slack_webapi_rate_limited_error`. */
  retryAfter?: number;
  /** HTTP status, on `slack_webapi_http_error`. */
  statusCode?: number;
}

/** 429 (with Retry-After), 5xx and network failures are worth another try; Slack's `{ok:false}` answers are not. */
export function classifySlackError(error: unknown): RetryVerdict | undefined {
  const failure = (error ?? {}) as SlackClientError;
  if (failure.code === 'slack_webapi_rate_limited_error') return { reason: 'rate limited (429)', retryAfterMs: Math.max(1, failure.retryAfter ?? 1) * 1000 };
  if (failure.code === 'slack_webapi_http_error' && (failure.statusCode ?? 0) >= 500) return { reason: `HTTP ${failure.statusCode}` };
  if (failure.code === 'slack_webapi_request_error') return { reason: 'network error' };
  return undefined;
}

/** A failed call's status for metrics and traces: the HTTP status, `network`, or `error` (Slack answered `ok: false`). */
export function slackCallStatus(error: unknown): string {
  const failure = (error ?? {}) as SlackClientError;
  if (failure.code === 'slack_webapi_rate_limited_error') return '429';
  if (failure.code === 'slack_webapi_http_error' && failure.statusCode) return String(failure.statusCode);
  if (failure.code === 'slack_webapi_request_error') return 'network';
  return 'error';
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
    // Each attempt is reported (telemetry): a 429 shows as one, and the retry that follows as another.
    return retryWithinBudget(() => limiter.schedule(() => reportedCall('slack', method, call, slackCallStatus)), {
      platform: 'slack',
      method,
      budgetMs: limits.retryBudgetMs,
      classify: classifySlackError,
      onRetry: async (verdict, waitMs) => {
        logger.warn('Slack call failed: trying again', { method, channel, reason: verdict.reason, waitMs });
        if (verdict.retryAfterMs === undefined) return;
        rateLimitedCount++;
        // Drain the bucket so queued calls of the same kind wait too. A limiter without a reservoir
        // must keep none: setting it to 0 would stop it for good.
        const reservoir = await limiter.currentReservoir();
        if (reservoir !== null) await limiter.incrementReservoir(-reservoir);
      },
    });
  }

  return {
    schedule,
    get rateLimitedCount() {
      return rateLimitedCount;
    },
    async stop() {
      await Promise.all([
        updates.stop({ dropWaitingJobs: true }),
        others.stop({ dropWaitingJobs: true }),
        ...posts.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true })),
      ]);
    },
  };
}
