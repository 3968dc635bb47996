/**
 * Slack's rate limits, per Web API method and workspace: which budget each call we make spends.
 * https://docs.slack.dev/apis/web-api/rate-limits — "applied on a per API method per
 * workspace/team per app basis": Tier 1 1+ a minute, Tier 2 20+, Tier 3 50+, Tier 4 100+, each
 * allowing bursts; chat.postMessage (special) about one message a second per channel, short bursts
 * allowed. The tier of each method is the one its page shows under Facts → Rate limits
 * (https://docs.slack.dev/reference/methods/<method>; read 2026-08, also as captured in
 * github.com/slack-ruby/slack-api-ref, docs.slack.dev/methods/<method>.json):
 *
 * | method                                   | tier    | budget here                          |
 * |------------------------------------------|---------|--------------------------------------|
 * | chat.postMessage                         | special | its channel: burst, then ~1 a second |
 * | chat.startStream                         | Tier 2  | its channel's posting + its own tier |
 * | chat.appendStream                        | Tier 4  | shared fairly among open streams     |
 * | chat.stopStream                          | Tier 2  | its own                              |
 * | chat.update, chat.delete                 | Tier 3  | its own                              |
 * | chat.postEphemeral                       | Tier 4  | its own                              |
 * | assistant.threads.setStatus              | special | its own, held to Tier 3 (unpublished)|
 * | agents.sessions.setStatus, .rename       | Tier 3  | its own                              |
 * | reactions.add                            | Tier 3  | its own                              |
 * | conversations.info, .replies, .open      | Tier 3  | its own                              |
 * | conversations.members                    | Tier 4  | its own                              |
 * | files.info, files.getUploadURLExternal,  | Tier 4  | its own                              |
 * | files.completeUploadExternal (uploadV2)  |         |                                      |
 * | users.info                               | Tier 4  | its own                              |
 * | assistant.threads.setTitle,              | Tier 4  | its own                              |
 * | assistant.threads.setSuggestedPrompts    |         |                                      |
 *
 * chat.startStream posts a message, so it also spends its channel's posting budget. Methods not
 * listed get their own Tier 3 budget. Nothing spaces calls of different methods.
 */

/** Calls a minute per workspace of each tier: the floor Slack documents ("20+", "50+", "100+"). */
export const SLACK_TIER_PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
export type SlackTier = keyof typeof SLACK_TIER_PER_MINUTE;

/** Tier 3: 50+ calls a minute per workspace. */
export const SLACK_TIER3_PER_MINUTE = SLACK_TIER_PER_MINUTE[3];
/** Tier 4: 100+ calls a minute per workspace. */
export const SLACK_TIER4_PER_MINUTE = SLACK_TIER_PER_MINUTE[4];

/** The tier of each method we call (chat.postMessage is paced per channel, not by tier). */
export const SLACK_METHOD_TIERS: Readonly<Record<string, SlackTier>> = {
  'chat.startStream': 2,
  'chat.appendStream': 4,
  'chat.stopStream': 2,
  'chat.update': 3,
  'chat.delete': 3,
  'chat.postEphemeral': 4,
  // Special: Slack publishes no number; held to Tier 3.
  'assistant.threads.setStatus': 3,
  // Agent sessions (a thread's status, title and native Stop): Tier 3, as Slack's SDKs register them.
  'agents.sessions.setStatus': 3,
  'agents.sessions.rename': 3,
  'reactions.add': 3,
  'conversations.info': 3,
  'conversations.replies': 3,
  'conversations.open': 3,
  'conversations.members': 4,
  'files.info': 4,
  // files.uploadV2 is files.getUploadURLExternal then files.completeUploadExternal, both Tier 4.
  'files.uploadV2': 4,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
  'users.info': 4,
  // The assistant surface (DMs with the app): thread titles and suggested prompts.
  'assistant.threads.setTitle': 4,
  'assistant.threads.setSuggestedPrompts': 4,
};

/** Calls a minute the workspace allows `method` (Tier 3 when not listed). */
export function slackTierPerMinute(method: string): number {
  return SLACK_TIER_PER_MINUTE[SLACK_METHOD_TIERS[method] ?? 3];
}

/** The channel's posting budget (chat.postMessage and chat.startStream). */
export const postBudget = (channel: string | undefined): string => `post:${channel ?? '_'}`;

/** Every budget a call of `method` spends: its channel's posting budget, its method's, or both. */
export function slackBudgetsOf(method: string, channel: string | undefined): string[] {
  if (method === 'chat.postMessage') return [postBudget(channel)];
  if (method === 'chat.startStream') return [postBudget(channel), method];
  return [method];
}

/**
 * A stream start is worth at most this wait: past it a reply posts a placeholder and edits it. So a
 * 429 on chat.startStream asking for longer (its Tier 2 window is spent — after a restart, say,
 * when this process has not counted what the last one spent) is not retried but answered that way.
 * It is also how long a reply's final text waits for chat.stopStream (Tier 2 too) before it goes
 * ahead with chat.appendStream, the bare stop following at its turn.
 */
export const STREAM_START_MAX_WAIT_MS = 2_000;

/** True when a 429 with this Retry-After is handed to the caller instead of waited out. */
export const givesUpOn429 = (method: string, retryAfterMs: number): boolean => method === 'chat.startStream' && retryAfterMs > STREAM_START_MAX_WAIT_MS;

/** What a 429 pauses: its method's budgets, or only the method's tier when the call gives up (its channel can still post). */
export function budgetsPausedBy429(method: string, channel: string | undefined, retryAfterMs: number): string[] {
  return givesUpOn429(method, retryAfterMs) ? [method] : slackBudgetsOf(method, channel);
}
