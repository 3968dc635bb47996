/**
 * One message of a thread as Slack shows it now (its text and blocks), for rewriting it without its
 * buttons when nothing in this process remembers what it said (restart recovery): chat.update needs
 * the text again. `conversations.replies` bounded to the message's own ts; the parent comes too.
 * https://docs.slack.dev/reference/methods/conversations.replies
 */
import type { WebClient } from '@slack/web-api';
import { TsukaError } from '../../core/errors.js';
import type { SlackCaller } from './call-budget.js';

export interface ShownMessage {
  ts?: string;
  text?: string;
  blocks?: unknown[];
}

export async function findBotMessage(client: WebClient, caller: SlackCaller, where: { channel: string; threadTs: string; ts: string }): Promise<ShownMessage> {
  const answer = (await caller({
    method: 'conversations.replies',
    priority: 'final',
    call: () => client.conversations.replies({ channel: where.channel, ts: where.threadTs, oldest: where.ts, latest: where.ts, inclusive: true, limit: 2 }),
  })) as { messages?: ShownMessage[] };
  const found = (answer.messages ?? []).find((message) => message.ts === where.ts);
  if (!found) throw new TsukaError('slack_message_not_found', `Slack has no message ${where.ts} in thread ${where.threadTs} of ${where.channel}.`);
  return found;
}
