/**
 * A Slack thread's earlier messages (issue 23): `conversations.replies` (scopes channels:history,
 * groups:history, im:history), which returns the parent and its replies oldest first — people's
 * messages the bot never received as events included. Only the thread of the calling message's own
 * channel is read; this bot's messages are left out; other apps' bot messages are marked. Their
 * files come as `InboundFile`s (their private URLs, fetched with the bot token like a mention's).
 * https://docs.slack.dev/reference/methods/conversations.replies
 */
import type { WebClient } from '@slack/web-api';
import type { ContextMessage, ThreadHistoryRequest } from '../../commands/conversation-context.js';
import type { SlackCaller } from './call-budget.js';
import { inboundFileOf, type SlackFileObject } from './files.js';
import { decodeMessage, userRef } from './ids.js';

/** Pages read at most (200 messages a page). */
const MAX_PAGES = 5;
const PAGE_SIZE = 200;

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

export function createSlackThreadHistory(client: WebClient, caller: SlackCaller, bot: () => { userId: string; botId: string }) {
  return async function threadHistory(request: ThreadHistoryRequest): Promise<ContextMessage[]> {
    if (!request.thread) return [];
    const message = decodeMessage(request.message);
    const thread = decodeMessage(request.thread);
    // Never another channel's thread, whatever the ids say.
    if (thread.channel !== message.channel || thread.team !== message.team) return [];
    const replies: SlackReply[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = (await caller({
        method: 'conversations.replies',
        priority: 'first',
        call: () =>
          client.conversations.replies({
            channel: thread.channel,
            ts: thread.ts,
            latest: message.ts,
            inclusive: false,
            limit: PAGE_SIZE,
            ...(cursor ? { cursor } : {}),
          }),
      })) as { messages?: SlackReply[]; has_more?: boolean; response_metadata?: { next_cursor?: string } };
      replies.push(...(answer.messages ?? []));
      cursor = answer.response_metadata?.next_cursor;
      if (!answer.has_more || !cursor) break;
    }
    const { userId, botId } = bot();
    return replies
      .filter((reply) => reply.ts !== undefined && Number(reply.ts) < Number(message.ts))
      .filter((reply) => reply.user !== userId && (reply.bot_id === undefined || reply.bot_id !== botId))
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
