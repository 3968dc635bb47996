/**
 * The Slack budget: every Web API call the adapter makes is scheduled here before it goes through
 * the limiter of `rate-limits.ts` (which keeps Retry-After handling for a 429 that still comes).
 * Budgets mirror Slack's limits with a small margin, so that Slack (almost) never answers 429:
 * posting per channel — chat.postMessage and chat.startStream, which posts a message — as a token
 * bucket; chat.update, reactions.add and assistant.threads.setStatus (Tier 3) and
 * chat.appendStream / chat.stopStream (Tier 4) as per-workspace sliding windows, one per method.
 * https://docs.slack.dev/apis/web-api/rate-limits
 */
import { createCallBudget, type BudgetRule, type CallBudget, type CallPriority, type SharedBudget } from '../shared/call-budget.js';
import type { SlackCallLimiter, SlackRateLimits } from './rate-limits.js';

/** Tier 3: 50+ calls a minute per workspace. */
export const SLACK_TIER3_PER_MINUTE = 50;
/** Tier 4: 100+ calls a minute per workspace. */
export const SLACK_TIER4_PER_MINUTE = 100;
/** Calls kept below each per-minute limit, and time added to each window: arrival times differ from sending times. */
const WINDOW_MARGIN_CALLS = 2;
const WINDOW_MARGIN_MS = 1_000;
/** Posting runs this much slower than Slack's per-channel rate, for the same reason. */
const POST_RATE_MARGIN = 0.95;

const windowRule = (perMinute: number): BudgetRule => ({
  kind: 'window',
  limit: Math.max(1, perMinute - WINDOW_MARGIN_CALLS),
  windowMs: 60_000 + WINDOW_MARGIN_MS,
});

/** The assistant surface's methods (thread titles, suggested prompts): Tier 4 each. */
const ASSISTANT_TIER4 = ['assistant.threads.setTitle', 'assistant.threads.setSuggestedPrompts'];

/** Which budget a method spends. */
export function slackBudgetOf(method: string, channel: string | undefined): string {
  if (method === 'chat.postMessage' || method === 'chat.startStream') return `post:${channel ?? '_'}`;
  if (['chat.update', 'chat.appendStream', 'chat.stopStream', 'reactions.add', 'assistant.threads.setStatus', ...ASSISTANT_TIER4].includes(method))
    return method;
  return 'other';
}

export function slackBudgetRule(limits: SlackRateLimits): (budget: string) => BudgetRule {
  return (budget) => {
    if (budget.startsWith('post:')) return { kind: 'bucket', capacity: limits.postBurst, perSecond: limits.postsPerSecondPerChannel * POST_RATE_MARGIN };
    if (budget === 'chat.update') return windowRule(limits.updatesPerMinute);
    if (budget === 'chat.appendStream' || budget === 'chat.stopStream' || ASSISTANT_TIER4.includes(budget)) return windowRule(SLACK_TIER4_PER_MINUTE);
    if (budget === 'reactions.add' || budget === 'assistant.threads.setStatus') return windowRule(SLACK_TIER3_PER_MINUTE);
    // Ephemerals, uploads, lookups: light spacing only.
    return { kind: 'bucket', capacity: 20, perSecond: 20 };
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
        if (limited?.code === 'slack_webapi_rate_limited_error') budget.pause(slackBudgetOf(method, channel), Math.max(1, limited.retryAfter ?? 1) * 1000);
        throw error;
      }),
    );
  const caller = <T>({ method, channel, priority, coalesceKey, call }: SlackCall<T>): Promise<T> =>
    budget.schedule({ budget: slackBudgetOf(method, channel), priority, coalesceKey, call: () => send(method, channel, call) });
  const budgeted = <T>({ method, channel, priority, coalesceKey, call }: SlackCall<T>): Promise<T> =>
    budget.schedule({ budget: slackBudgetOf(method, channel), priority, coalesceKey, call });
  return Object.assign(caller, { budget, budgeted, send });
}
