/**
 * Slack's Web API rate limits as the emulator enforces them: chat.postMessage about one message per
 * second per channel with short bursts tolerated (a token bucket), chat.update Tier 3 (a 60-second
 * sliding window per app). https://docs.slack.dev/apis/web-api/rate-limits
 */

/** Rate-limit settings; every field can be changed at runtime. */
export interface RateLimitSettings {
  /** Refill rate of each channel's chat.postMessage bucket. */
  postMessagePerChannelPerSecond: number;
  /** Size of each channel's chat.postMessage bucket: how many messages may go out at once. */
  postMessageBurst: number;
  /** chat.update calls allowed per app in any 60-second window. */
  updatePerMinute: number;
  enabled: boolean;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  postMessagePerChannelPerSecond: 1,
  postMessageBurst: 4,
  updatePerMinute: 50,
  enabled: true,
};

/** Whether a call may proceed; when not, how long Slack would ask the client to wait. */
export type RateLimitDecision = { limited: false } | { limited: true; retryAfterSeconds: number };

/** Decides, call by call, whether a Web API call is over its limit. */
export interface RateLimiter {
  /** Counts the call when it is allowed; a refused call costs nothing. */
  take(method: string, channel: string | undefined): RateLimitDecision;
  /** Changes settings and forgets the calls counted so far. */
  configure(changes: Partial<RateLimitSettings>): void;
  settings(): RateLimitSettings;
}

const WINDOW_MS = 60_000;

/** Creates a limiter; `now` (milliseconds) is injectable so tests can move time by hand. */
export function createRateLimiter(initial: Partial<RateLimitSettings> = {}, now: () => number = Date.now): RateLimiter {
  let settings: RateLimitSettings = { ...DEFAULT_RATE_LIMITS, ...initial };
  let buckets = new Map<string, { tokens: number; at: number }>();
  let updates: number[] = [];

  const takePostMessage = (channel: string): RateLimitDecision => {
    const rate = settings.postMessagePerChannelPerSecond;
    const time = now();
    const bucket = buckets.get(channel) ?? { tokens: settings.postMessageBurst, at: time };
    bucket.tokens = Math.min(settings.postMessageBurst, bucket.tokens + ((time - bucket.at) / 1000) * rate);
    bucket.at = time;
    buckets.set(channel, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { limited: false };
    }
    return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) };
  };

  const takeUpdate = (): RateLimitDecision => {
    const time = now();
    updates = updates.filter((at) => at > time - WINDOW_MS);
    const oldest = updates[0];
    if (updates.length >= settings.updatePerMinute && oldest !== undefined) {
      return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - time) / 1000)) };
    }
    updates.push(time);
    return { limited: false };
  };

  return {
    take(method, channel) {
      if (!settings.enabled) return { limited: false };
      if (method === 'chat.postMessage') return takePostMessage(channel ?? '');
      if (method === 'chat.update') return takeUpdate();
      return { limited: false };
    },
    configure(changes) {
      settings = { ...settings, ...changes };
      buckets = new Map();
      updates = [];
    },
    settings: () => ({ ...settings }),
  };
}
