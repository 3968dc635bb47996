/**
 * Every Slack Web API call goes through here, after its budget (`call-budget.ts`) let it go: no
 * spacing of its own and no limit on calls in flight, so unrelated calls never wait for each
 * other. A 429 pauses the budgets of that method alone (its channel's posting budget for
 * chat.postMessage; see `method-tiers.ts`) for `Retry-After` seconds and the call is tried again;
 * a 5xx or a network error is tried again with backoff. Both give up only after the retry budget
 * (60 s by default, `retryDelivery`), so a short outage of Slack never costs a reply.
 */
import type { Logger } from '../../core/logger.js';
import { TsukaError } from '../../core/errors.js';
import { DELIVERY_RETRY_BUDGET_MS, retryWithinBudget, type RetryVerdict } from '../../commands/reply/delivery-retry.js';
import { reportedCall } from '../shared/platform-calls.js';
import { givesUpOn429, slackBudgetsOf } from './method-tiers.js';

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

/** The adapter stopped while a call waited out a 429 of its method. */
export class SlackLimiterStoppedError extends TsukaError {
  constructor(method: string) {
    super('slack_limiter_stopped', `the Slack adapter stopped before ${method} could be tried again`);
  }
}

export function createSlackCallLimiter(limits: Pick<SlackRateLimits, 'retryBudgetMs'>, logger: Logger): SlackCallLimiter {
  const now = Date.now;
  /** Until when each budget (a method's, a channel's posting) is paused by a 429. */
  const pausedUntil = new Map<string, number>();
  const sleeping = new Set<() => void>();
  let rateLimitedCount = 0;
  let stopped = false;

  /** A wait that `stop` cuts short. */
  const sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const wake = () => {
        sleeping.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleeping.add(wake);
    });

  /** Waits while a 429 of this method (or of its channel's posting) holds; other methods never wait here. */
  async function unpaused(method: string, budgets: string[]): Promise<void> {
    for (;;) {
      if (stopped) throw new SlackLimiterStoppedError(method);
      const waitMs = Math.max(0, ...budgets.map((budget) => pausedUntil.get(budget) ?? 0)) - now();
      if (waitMs <= 0) return;
      await sleep(waitMs);
    }
  }

  async function schedule<T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T> {
    const budgets = slackBudgetsOf(method, channel);
    // Each attempt is reported (telemetry): a 429 shows as one, and the retry that follows as another.
    return retryWithinBudget(
      async () => {
        await unpaused(method, budgets);
        return reportedCall('slack', method, call, slackCallStatus);
      },
      {
        platform: 'slack',
        method,
        budgetMs: limits.retryBudgetMs,
        classify: (error) => {
          const verdict = classifySlackError(error);
          if (verdict?.retryAfterMs === undefined || !givesUpOn429(method, verdict.retryAfterMs)) return verdict;
          // Not waited out: the caller answers another way (a stream start → a placeholder); later starts wait.
          rateLimitedCount++;
          pausedUntil.set(method, Math.max(pausedUntil.get(method) ?? 0, now() + verdict.retryAfterMs));
          return undefined;
        },
        sleep,
        onRetry: (verdict, waitMs) => {
          logger.warn('Slack call failed: trying again', { method, channel, reason: verdict.reason, waitMs });
          if (verdict.retryAfterMs === undefined) return;
          rateLimitedCount++;
          // Calls of the same method (and channel, for posting) wait too; other methods go on.
          const until = now() + verdict.retryAfterMs;
          for (const budget of budgets) pausedUntil.set(budget, Math.max(pausedUntil.get(budget) ?? 0, until));
        },
      },
    );
  }

  return {
    schedule,
    get rateLimitedCount() {
      return rateLimitedCount;
    },
    async stop() {
      stopped = true;
      for (const wake of [...sleeping]) wake();
    },
  };
}
