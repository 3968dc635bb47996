/**
 * Slack's Web API rate limits as the emulator enforces them, per method and workspace, as each
 * method's page documents (Facts → Rate limits; https://docs.slack.dev/apis/web-api/rate-limits):
 * chat.postMessage about one message per second per channel with short bursts tolerated (a token
 * bucket), shared with chat.startStream (which posts a message); every other method its own
 * 60-second sliding window for the whole workspace, sized by its tier (Tier 2: 20, Tier 3: 50,
 * Tier 4: 100 a minute). A window takes a burst up to its size at once, as Slack tolerates bursts.
 * chat.startStream spends both its channel's posting bucket and its Tier 2 window.
 */

/** Calls a minute per workspace of each Web API tier. */
export const TIER_PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
export type SlackTier = keyof typeof TIER_PER_MINUTE;

/**
 * Each method's tier, from its page on docs.slack.dev (checked 2026-08 against the method pages as
 * captured in slack-ruby/slack-api-ref, docs.slack.dev/methods/*.json). `special`: its own rule
 * (posting per channel), or a special tier whose numbers Slack does not publish, held to Tier 3 here.
 */
export const METHOD_TIERS: Record<string, SlackTier | 'special'> = {
  'chat.postMessage': 'special',
  'chat.startStream': 2,
  'chat.appendStream': 4,
  'chat.stopStream': 2,
  'chat.update': 3,
  'chat.delete': 3,
  'chat.postEphemeral': 4,
  'assistant.threads.setStatus': 'special',
  'reactions.add': 3,
  'conversations.info': 3,
  'conversations.replies': 3,
  'conversations.members': 4,
  'conversations.open': 3,
  'files.info': 4,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
  'users.info': 4,
  'usergroups.users.list': 2,
  'assistant.threads.setTitle': 4,
  'assistant.threads.setSuggestedPrompts': 4,
};

/** Rate-limit settings; every field can be changed at runtime. */
export interface RateLimitSettings {
  /** Refill rate of each channel's chat.postMessage bucket. */
  postMessagePerChannelPerSecond: number;
  /** Size of each channel's chat.postMessage bucket: how many messages may go out at once. */
  postMessageBurst: number;
  /** chat.update calls allowed per app in any 60-second window (Tier 3). */
  updatePerMinute: number;
  /** chat.startStream calls allowed per workspace in any 60-second window (Tier 2), on top of the channel's posting bucket. */
  startStreamPerMinute: number;
  /** chat.appendStream calls allowed per workspace in any 60-second window (Tier 4). */
  appendStreamPerMinute: number;
  /** chat.stopStream calls allowed per workspace in any 60-second window (Tier 2). */
  stopStreamPerMinute: number;
  /** reactions.add calls allowed per workspace in any 60-second window (Tier 3). */
  reactionsPerMinute: number;
  /** assistant.threads.setStatus calls allowed per workspace in any 60-second window (special: held to Tier 3). */
  setStatusPerMinute: number;
  /** Other methods: a window of their tier's size (`METHOD_TIERS`; Tier 3 when unlisted), unless listed here. */
  methodsPerMinute: Record<string, number>;
  enabled: boolean;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  postMessagePerChannelPerSecond: 1,
  postMessageBurst: 4,
  updatePerMinute: TIER_PER_MINUTE[3],
  startStreamPerMinute: TIER_PER_MINUTE[2],
  appendStreamPerMinute: TIER_PER_MINUTE[4],
  stopStreamPerMinute: TIER_PER_MINUTE[2],
  reactionsPerMinute: TIER_PER_MINUTE[3],
  setStatusPerMinute: TIER_PER_MINUTE[3],
  methodsPerMinute: {},
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
/** Methods the emulator does not limit: the connection handshake and the token check. */
const UNLIMITED = new Set(['auth.test', 'apps.connections.open']);

/** Creates a limiter; `now` (milliseconds) is injectable so tests can move time by hand. */
export function createRateLimiter(initial: Partial<RateLimitSettings> = {}, now: () => number = Date.now): RateLimiter {
  let settings: RateLimitSettings = { ...DEFAULT_RATE_LIMITS, ...initial };
  let buckets = new Map<string, { tokens: number; at: number }>();
  let windows = new Map<string, number[]>();

  /** A check and what taking the call would spend: nothing is spent unless every check of the call passes. */
  type Check = { decision: RateLimitDecision; spend: () => void };

  const postCheck = (channel: string, time: number): Check => {
    const rate = settings.postMessagePerChannelPerSecond;
    const bucket = buckets.get(channel) ?? { tokens: settings.postMessageBurst, at: time };
    bucket.tokens = Math.min(settings.postMessageBurst, bucket.tokens + ((time - bucket.at) / 1000) * rate);
    bucket.at = time;
    buckets.set(channel, bucket);
    if (bucket.tokens >= 1) return { decision: { limited: false }, spend: () => (bucket.tokens -= 1) };
    return { decision: { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) }, spend: () => undefined };
  };

  const windowCheck = (method: string, perMinute: number, time: number): Check => {
    const calls = (windows.get(method) ?? []).filter((at) => at > time - WINDOW_MS);
    windows.set(method, calls);
    const oldest = calls[0];
    if (calls.length >= perMinute && oldest !== undefined)
      return { decision: { limited: true, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - time) / 1000)) }, spend: () => undefined };
    return { decision: { limited: false }, spend: () => calls.push(time) };
  };

  const perMinute = (method: string): number => {
    const named: Record<string, number> = {
      'chat.update': settings.updatePerMinute,
      'chat.startStream': settings.startStreamPerMinute,
      'chat.appendStream': settings.appendStreamPerMinute,
      'chat.stopStream': settings.stopStreamPerMinute,
      'reactions.add': settings.reactionsPerMinute,
      'assistant.threads.setStatus': settings.setStatusPerMinute,
    };
    const tier = METHOD_TIERS[method];
    return settings.methodsPerMinute[method] ?? named[method] ?? TIER_PER_MINUTE[typeof tier === 'number' ? tier : 3];
  };

  return {
    take(method, channel) {
      if (!settings.enabled || UNLIMITED.has(method)) return { limited: false };
      const time = now();
      const checks: Check[] = [];
      if (method === 'chat.postMessage' || method === 'chat.startStream') checks.push(postCheck(channel ?? '', time));
      if (method !== 'chat.postMessage') checks.push(windowCheck(method, perMinute(method), time));
      const refused = checks.map((check) => check.decision).filter((decision) => decision.limited);
      if (refused.length > 0) return { limited: true, retryAfterSeconds: Math.max(...refused.map((decision) => decision.retryAfterSeconds)) };
      for (const check of checks) check.spend();
      return { limited: false };
    },
    configure(changes) {
      settings = { ...settings, ...changes };
      buckets = new Map();
      windows = new Map();
    },
    settings: () => ({ ...settings }),
  };
}
