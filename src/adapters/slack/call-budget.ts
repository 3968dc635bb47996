/**
 * The Slack budget: every Web API call the adapter makes is scheduled here before it goes through
 * the limiter of `rate-limits.ts` (which keeps Retry-After handling for a 429 that still comes).
 * Each method spends its own budget, as Slack counts them (`method-tiers.ts`: posting per channel,
 * Tier 2/3/4 per method and workspace), so a call never waits for an unrelated one. Budgets mirror
 * Slack's limits with a margin of time (arrival times differ from sending times), so that Slack
 * (almost) never answers 429:
 * - posting per channel (chat.postMessage, and chat.startStream, which posts a message): a token
 *   bucket, a little slower than Slack's one a second;
 * - chat.appendStream: a bucket that never exceeds Tier 4 in any window, with a burst of part of
 *   it and the rest spread steadily; among the waiting appends the stream updated longest ago goes
 *   first, so with many streams every one keeps moving, and each stream appends at most once per
 *   edit interval, so one alone makes at most 2 + its seconds calls;
 * - every other method: a sliding window of its tier per workspace (bursts up to the tier).
 * https://docs.slack.dev/apis/web-api/rate-limits
 */
import { createCallBudget, type BudgetRule, type CallBudget, type CallPriority, type SharedBudget } from '../shared/call-budget.js';
import { SLACK_TIER4_PER_MINUTE, budgetsPausedBy429, slackBudgetsOf, slackTierPerMinute } from './method-tiers.js';
import type { SlackCallLimiter, SlackRateLimits } from './rate-limits.js';

export { SLACK_TIER3_PER_MINUTE, SLACK_TIER4_PER_MINUTE, slackBudgetsOf } from './method-tiers.js';

/** Time added to each window: a call counted when sent may arrive later, so two windows seen by Slack never hold more. */
const WINDOW_MARGIN_MS = 1_000;
const WINDOW_MS = 60_000 + WINDOW_MARGIN_MS;
/** Posting runs this much slower than Slack's per-channel rate, for the same reason. */
const POST_RATE_MARGIN = 0.97;
/** Part of Tier 4 that open streams may append at once; the rest comes back steadily over the window. */
const APPEND_BURST_SHARE = 0.1;

const windowRule = (perMinute: number): BudgetRule => ({ kind: 'window', limit: Math.max(1, perMinute), windowMs: WINDOW_MS });

/**
 * The appends of every open stream: a bucket of `burst` refilled at (limit − burst) per window, so
 * that no window ever holds more than Slack's limit and the budget never runs dry for a minute.
 */
export function appendRule(perMinute = SLACK_TIER4_PER_MINUTE): BudgetRule {
  const capacity = Math.max(1, Math.floor(perMinute * APPEND_BURST_SHARE));
  return { kind: 'bucket', capacity, perSecond: ((perMinute - capacity) / WINDOW_MS) * 1000 };
}

export function slackBudgetRule(limits: SlackRateLimits): (budget: string) => BudgetRule {
  return (budget) => {
    if (budget.startsWith('post:')) return { kind: 'bucket', capacity: limits.postBurst, perSecond: limits.postsPerSecondPerChannel * POST_RATE_MARGIN };
    if (budget === 'chat.update') return windowRule(limits.updatesPerMinute);
    if (budget === 'chat.appendStream') return appendRule();
    return windowRule(slackTierPerMinute(budget));
  };
}

export interface SlackCall<T> {
  method: string;
  channel?: string;
  priority: CallPriority;
  coalesceKey?: string;
  call: () => Promise<T>;
}

/** Schedules one Slack call on its budget, then through the limiter. */
export interface SlackCaller {
  <T>(call: SlackCall<T>): Promise<T>;
  /** Spends `method`'s budget, then runs `call` as is: a call that picks its method when its turn comes sends with `send`. */
  budgeted<T>(call: SlackCall<T>): Promise<T>;
  /** Sends one call through the limiter without spending budget (its turn was already given). */
  send<T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T>;
  readonly budget: CallBudget;
}

export function createSlackCaller(limits: SlackRateLimits, limiter: SlackCallLimiter, editIntervalMs: number, shared?: SharedBudget): SlackCaller {
  const budget = createCallBudget({ ruleFor: slackBudgetRule(limits), editIntervalMs, shared: shared && ((name, rule) => shared(`slack:${name}`, rule)) });
  // Every attempt is watched: a 429 that still comes pauses the budget for Retry-After, so queued calls wait too.
  const send = <T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T> =>
    limiter.schedule(method, channel, () =>
      call().catch((error: unknown) => {
        const limited = error as { code?: string; retryAfter?: number };
        if (limited?.code === 'slack_webapi_rate_limited_error') {
          const ms = Math.max(1, limited.retryAfter ?? 1) * 1000;
          for (const name of budgetsPausedBy429(method, channel, ms)) budget.pause(name, ms);
        }
        throw error;
      }),
    );
  const caller = <T>({ method, channel, priority, coalesceKey, call }: SlackCall<T>): Promise<T> =>
    budget.schedule({ budget: slackBudgetsOf(method, channel), priority, coalesceKey, call: () => send(method, channel, call) });
  const budgeted = <T>({ method, channel, priority, coalesceKey, call }: SlackCall<T>): Promise<T> =>
    budget.schedule({ budget: slackBudgetsOf(method, channel), priority, coalesceKey, call });
  return Object.assign(caller, { budget, budgeted, send });
}
