/**
 * Whether a user is in a Slack channel now: conversations.members, paged by cursor (scopes
 * channels:read, groups:read, im:read, mpim:read). Never cached: a schedule asks it at the moment
 * it fires, so someone removed a minute ago is already out. A channel the bot cannot read answers
 * an error, which the caller takes as "not confirmed".
 * https://docs.slack.dev/reference/methods/conversations.members
 */
import type { WebClient } from '@slack/web-api';
import type { SlackCaller } from './call-budget.js';

/** Members asked per page (Slack's documented maximum is 1,000; it recommends at most 200). */
const MEMBERS_PAGE_SIZE = 200;
/** Pages read before giving up on a very large channel: undecided is an error, never "a member". */
const MAX_MEMBER_PAGES = 50;

export function createSlackMembership(client: WebClient, caller: SlackCaller) {
  return async function isMember(channelId: string, userId: string): Promise<boolean> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_MEMBER_PAGES; page++) {
      const answer = (await caller({
        method: 'conversations.members',
        priority: 'final',
        call: () => client.conversations.members({ channel: channelId, limit: MEMBERS_PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
      })) as { members?: string[]; response_metadata?: { next_cursor?: string } };
      if (answer.members?.includes(userId)) return true;
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) return false;
    }
    throw new Error(`conversations.members: more than ${MAX_MEMBER_PAGES * MEMBERS_PAGE_SIZE} members in ${channelId}, membership not confirmed`);
  };
}
