/**
 * What a Slack channel is: conversations.info with `include_num_members` (scopes channels:read,
 * groups:read, im:read). Kept for five minutes per channel; a failure (a missing scope, a channel
 * the bot cannot see) is not cached and the caller assumes a shared channel.
 * https://docs.slack.dev/reference/methods/conversations.info
 */
import type { WebClient } from '@slack/web-api';
import type { ChannelInfo } from '../../commands/chat-surface.js';
import type { SlackCaller } from './call-budget.js';

const CHANNEL_INFO_TTL_MS = 5 * 60_000;

interface SlackChannel {
  is_im?: boolean;
  is_mpim?: boolean;
  is_private?: boolean;
  name?: string;
  num_members?: number;
}

export function createSlackChannelInfo(client: WebClient, caller: SlackCaller, now: () => number = Date.now) {
  const cache = new Map<string, { info: ChannelInfo; until: number }>();
  // A burst of mentions in one channel asks once: conversations.info is Tier 3 (50 a minute per workspace).
  const asking = new Map<string, Promise<ChannelInfo>>();

  async function ask(channelId: string): Promise<ChannelInfo> {
    const answer = await caller({
      method: 'conversations.info',
      priority: 'first',
      call: () => client.conversations.info({ channel: channelId, include_num_members: true }),
    });
    const channel = (answer as { channel?: SlackChannel }).channel ?? {};
    const info: ChannelInfo = channel.is_im
      ? { kind: 'dm', members: 2 }
      : {
          kind: channel.is_private || channel.is_mpim ? 'private' : 'public',
          ...(channel.name ? { name: channel.name } : {}),
          ...(typeof channel.num_members === 'number' ? { members: channel.num_members } : {}),
        };
    cache.set(channelId, { info, until: now() + CHANNEL_INFO_TTL_MS });
    return info;
  }

  return function channelInfo(channelId: string): Promise<ChannelInfo> {
    const cached = cache.get(channelId);
    if (cached && cached.until > now()) return Promise.resolve(cached.info);
    let pending = asking.get(channelId);
    if (!pending) {
      pending = ask(channelId).finally(() => asking.delete(channelId));
      asking.set(channelId, pending);
    }
    return pending;
  };
}
