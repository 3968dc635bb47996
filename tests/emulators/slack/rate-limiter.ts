/**
 * Slack's Web API rate limits as the emulator enforces them: chat.postMessage about one message per
 * second per channel with short bursts tolerated (a token bucket), shared with chat.startStream
 * (which posts a message); chat.update, reactions.add and assistant.threads.setStatus Tier 3,
 * chat.appendStream and chat.stopStream Tier 4 (60-second sliding windows per workspace, one per
 * method). https://docs.slack.dev/apis/web-api/rate-limits
 */

/** Rate-limit settings; every field can be changed at runtime. */
export interface RateLimitSettings {
  /** Refill rate of each channel's chat.postMessage bucket. */
  postMessagePerChannelPerSecond: number;
  /** Size of each channel's chat.postMessage bucket: how many messages may go out at once. */
  postMessageBurst: number;
  /** chat.update calls allowed per app in any 60-second window. */
  updatePerMinute: number;
  /** chat.appendStream calls allowed per workspace in any 60-second window (Tier 4). */
  appendStreamPerMinute: number;
  /** chat.stopStream calls allowed per workspace in any 60-second window (Tier 4). */
  stopStreamPerMinute: number;
  /** reactions.add calls allowed per workspace in any 60-second window (Tier 3). */
  reactionsPerMinute: number;
  /** assistant.threads.setStatus calls allowed per workspace in any 60-second window. */
  setStatusPerMinute: number;
  enabled: boolean;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  postMessagePerChannelPerSecond: 1,
  postMessageBurst: 4,
  updatePerMinute: 50,
  appendStreamPerMinute: 100,
  stopStreamPerMinute: 100,
  reactionsPerMinute: 50,
  setStatusPerMinute: 50,
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
  let windows = new Map<string, number[]>();

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

  const takeWindow = (method: string, perMinute: number): RateLimitDecision => {
    const time = now();
    const calls = (windows.get(method) ?? []).filter((at) => at > time - WINDOW_MS);
    windows.set(method, calls);
    const oldest = calls[0];
    if (calls.length >= perMinute && oldest !== undefined) {
      return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - time) / 1000)) };
    }
    calls.push(time);
    return { limited: false };
  };

  const perMinute = (method: string): number | undefined =>
    ({
      'chat.update': settings.updatePerMinute,
      'chat.appendStream': settings.appendStreamPerMinute,
      'chat.stopStream': settings.stopStreamPerMinute,
      'reactions.add': settings.reactionsPerMinute,
      'assistant.threads.setStatus': settings.setStatusPerMinute,
    })[method];

  return {
    take(method, channel) {
      if (!settings.enabled) return { limited: false };
      if (method === 'chat.postMessage' || method === 'chat.startStream') return takePostMessage(channel ?? '');
      const limit = perMinute(method);
      return limit === undefined ? { limited: false } : takeWindow(method, limit);
    },
    configure(changes) {
      settings = { ...settings, ...changes };
      buckets = new Map();
      windows = new Map();
    },
    settings: () => ({ ...settings }),
  };
}
