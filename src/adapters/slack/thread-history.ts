/**
 * A Slack thread's earlier messages (issue 23): `conversations.replies` (scopes channels:history,
 * groups:history, im:history), which returns the parent and its replies oldest first — people's
 * messages the bot never received as events included. Only the thread of the calling message's own
 * channel is read; this bot's messages are left out; other apps' bot messages are marked. Their
 * files come as `InboundFile`s (their private URLs, fetched with the bot token like a mention's).
 * Only the newest messages are used (issue 42): a long thread is read back from the mention in
 * time windows, not page by page from its start.
 * https://docs.slack.dev/reference/methods/conversations.replies
 */
import type { WebClient } from '@slack/web-api';
import type { ContextMessage, ThreadHistoryRequest } from '../../commands/context/conversation-context.js';
import type { SlackCaller } from './call-budget.js';
import { inboundFileOf, type SlackFileObject } from './files.js';
import { decodeMessage, userRef } from './ids.js';

/** Messages one call asks for (Slack recommends no more than 200). */
const PAGE_SIZE = 200;
/** Calls one tag-in makes at most. */
const MAX_CALLS = 8;
/** A window back from the mention is aimed at this many times the messages still wanted (this bot's own are left out). */
const WINDOW_AIM = 1.5;
/** …and at most this share of a page. */
const WINDOW_FILL = 0.8;

interface SlackReply {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  username?: string;
  text?: string;
  bot_profile?: { name?: string };
  user_profile?: { display_name?: string; real_name?: string };
  files?: SlackFileObject[];
}

interface RepliesAnswer {
  messages?: SlackReply[];
  has_more?: boolean;
}

/** A Slack ts as whole microseconds (exact: no float seconds), and back. */
const micros = (ts: string | undefined): number => {
  const [seconds = '0', fraction = ''] = (ts ?? '0').split('.');
  return Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
};
const tsOf = (value: number): string => `${Math.floor(value / 1_000_000)}.${String(value % 1_000_000).padStart(6, '0')}`;

/** `earlier` then `later`, oldest first, each ts once (windows that share a bound both hold its message). */
function merge(earlier: readonly SlackReply[], later: readonly SlackReply[]): SlackReply[] {
  const seen = new Set<string | undefined>();
  return [...earlier, ...later].filter((reply) => !seen.has(reply.ts) && seen.add(reply.ts)).sort((a, b) => micros(a.ts) - micros(b.ts));
}

/**
 * The thread's messages before the mention, enough for the newest `wanted` usable ones. Slack
 * returns a thread oldest first: one page when the thread is short; else windows (`oldest`/`latest`)
 * read back from the mention, sized from the messages per second seen so far, until they hold enough
 * — never every page of a long thread.
 */
async function newestReplies(
  page: (window: { oldest?: string; latest: string; inclusive: boolean }) => Promise<RepliesAnswer>,
  options: {
    parentTs: string;
    mentionTs: string;
    wanted: number;
    usable: (replies: readonly SlackReply[]) => number;
  },
): Promise<SlackReply[]> {
  const first = await page({ latest: options.mentionTs, inclusive: false });
  const head = first.messages ?? [];
  if (!first.has_more || head.length === 0) return head;
  // Everything up to the head's last message is known; the newest messages lie between it and the mention.
  const headEnd = micros(head.at(-1)!.ts);
  const mention = micros(options.mentionTs);
  let latest = mention;
  /** Messages per microsecond, and the share of them that is usable (not this bot's), as seen so far. */
  let perMicro = head.length / Math.max(1, headEnd - micros(options.parentTs));
  let usableShare = Math.max(0.1, options.usable(head) / head.length);
  let tail: SlackReply[] = [];
  for (let calls = 1; calls < MAX_CALLS; calls += 1) {
    const missing = Math.max(1, options.wanted - options.usable(tail));
    // Aimed at what is missing, and at most most of a page (a fuller window would need a second call).
    const aim = Math.min((WINDOW_AIM * missing) / usableShare, WINDOW_FILL * PAGE_SIZE);
    const oldest = Math.max(headEnd, Math.floor(latest - aim / perMicro));
    const answer = await page({ oldest: tsOf(oldest), latest: tsOf(latest), inclusive: true });
    const messages = answer.messages ?? [];
    if (answer.has_more && messages.length > 0) {
      // More than a page in the window: its earliest page came. A narrower window (a quarter or less) goes again.
      perMicro = Math.max(4 * perMicro, messages.length / Math.max(1, micros(messages.at(-1)!.ts) - oldest));
      continue;
    }
    tail = merge(messages, tail);
    if (oldest <= headEnd) return merge(head, tail);
    if (options.usable(tail) >= options.wanted) return tail;
    // Too few: the next window, further back, is aimed by what the windows so far held.
    perMicro = Math.max(1, tail.length) / Math.max(1, mention - oldest) / (tail.length === 0 ? 4 : 1);
    if (tail.length > 0) usableShare = Math.max(0.1, options.usable(tail) / tail.length);
    latest = oldest;
  }
  return tail.length > 0 ? tail : head;
}

export function createSlackThreadHistory(client: WebClient, caller: SlackCaller, bot: () => { userId: string; botId: string }) {
  return async function threadHistory(request: ThreadHistoryRequest): Promise<ContextMessage[]> {
    if (!request.thread) return [];
    const message = decodeMessage(request.message);
    const thread = decodeMessage(request.thread);
    // Never another channel's thread, whatever the ids say.
    if (thread.channel !== message.channel || thread.team !== message.team) return [];
    const { userId, botId } = bot();
    const kept = (replies: readonly SlackReply[]) =>
      replies
        .filter((reply) => reply.ts !== undefined && micros(reply.ts) < micros(message.ts))
        .filter((reply) => reply.user !== userId && (reply.bot_id === undefined || reply.bot_id !== botId));
    const page = (window: { oldest?: string; latest: string; inclusive: boolean }) =>
      caller({
        method: 'conversations.replies',
        priority: 'first',
        call: () => client.conversations.replies({ channel: thread.channel, ts: thread.ts, limit: PAGE_SIZE, ...window }),
      }) as Promise<RepliesAnswer>;
    const replies = await newestReplies(page, {
      parentTs: thread.ts,
      mentionTs: message.ts,
      wanted: request.limit,
      usable: (found) => kept(found).length,
    });
    return kept(replies)
      .map((reply) => toContextMessage(reply))
      .slice(-request.limit);
  };
}

function toContextMessage(reply: SlackReply): ContextMessage {
  const fromOtherBot = reply.bot_id !== undefined || reply.subtype === 'bot_message';
  const name = reply.user_profile?.display_name || reply.user_profile?.real_name || reply.username || reply.bot_profile?.name;
  const fileNames = (reply.files ?? []).flatMap((file) => (file.name ? [file.name] : []));
  const files = (reply.files ?? []).flatMap((file) => inboundFileOf(file) ?? []);
  return {
    user: userRef(reply.user ?? reply.bot_id ?? 'unknown'),
    userName: name ?? `<@${reply.user ?? reply.bot_id ?? 'unknown'}>`,
    text: reply.text ?? '',
    at: Math.round(Number(reply.ts) * 1000),
    ...(fromOtherBot ? { fromOtherBot } : {}),
    ...(fileNames.length > 0 ? { fileNames } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}
