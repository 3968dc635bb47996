/**
 * A chat platform that answers 429 or 5xx in the middle of a reply is waited out, not given up at
 * once: each adapter retries its calls with backoff (honouring Retry-After) within one time budget
 * per call, then throws `ChatDeliveryError`, whose message says what failed — the turn that meets
 * it says so in its thread when it still can, and is recorded failed.
 */
import { TsukaError } from '../../core/errors.js';

/** How long one platform call is retried before its turn is given up (issue 17: 60 s). */
export const DELIVERY_RETRY_BUDGET_MS = 60_000;
/** First backoff after a 5xx or a network error; doubled per attempt up to the cap. */
export const DELIVERY_BACKOFF_START_MS = 500;
export const DELIVERY_BACKOFF_MAX_MS = 8_000;

/** Why a failed call may be tried again; `retryAfterMs` when the platform said how long to wait. */
export interface RetryVerdict {
  /** `HTTP 500`, `rate limited (429)`, `network error`… — shown to users when the budget runs out. */
  reason: string;
  retryAfterMs?: number;
}

/** A platform kept refusing a call for the whole retry budget. */
export class ChatDeliveryError extends TsukaError {
  readonly platform: string;
  readonly method: string;
  readonly attempts: number;
  constructor(platform: string, method: string, details: { reason: string; attempts: number; elapsedMs: number; cause?: unknown }) {
    const name = platform.charAt(0).toUpperCase() + platform.slice(1);
    super(
      'chat_delivery_failed',
      `${name} kept failing (${details.reason} on ${method}) for ${Math.round(details.elapsedMs / 1000)} s, so this reply is incomplete.`,
      { cause: details.cause },
    );
    this.platform = platform;
    this.method = method;
    this.attempts = details.attempts;
  }
}

export interface DeliveryRetryOptions {
  platform: string;
  method: string;
  /** A verdict when the error is worth another try (429, 5xx, network); undefined rethrows it at once. */
  classify(error: unknown): RetryVerdict | undefined;
  budgetMs?: number;
  /** Called before each wait (logging, draining a rate-limit bucket). */
  onRetry?(verdict: RetryVerdict, waitMs: number, attempt: number): void | Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `call`, retrying retryable failures until the budget (counted from the first failure) is spent. */
export async function retryWithinBudget<T>(call: () => Promise<T>, options: DeliveryRetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const budgetMs = options.budgetMs ?? DELIVERY_RETRY_BUDGET_MS;
  let firstFailureAt: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const verdict = options.classify(error);
      if (!verdict) throw error;
      firstFailureAt ??= now();
      const elapsedMs = now() - firstFailureAt;
      const backoffMs = Math.min(DELIVERY_BACKOFF_MAX_MS, DELIVERY_BACKOFF_START_MS * 2 ** (attempt - 1));
      const waitMs = verdict.retryAfterMs ?? backoffMs;
      if (elapsedMs + waitMs > budgetMs)
        throw new ChatDeliveryError(options.platform, options.method, { reason: verdict.reason, attempts: attempt, elapsedMs, cause: error });
      await options.onRetry?.(verdict, waitMs, attempt);
      await sleep(waitMs);
    }
  }
}
