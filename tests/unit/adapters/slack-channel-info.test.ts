/**
 * conversations.info is Tier 3 (50 a minute per workspace): a burst of mentions in one channel must
 * ask Slack once, not once per mention, or the 51st turn waits a minute for what it already knows.
 */
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createSlackChannelInfo } from '../../../src/adapters/slack/channel-info.js';
import type { SlackCaller } from '../../../src/adapters/slack/call-budget.js';

function countingClient() {
  const asked: string[] = [];
  let answer: (() => void) | undefined;
  const client = {
    conversations: {
      info: async ({ channel }: { channel: string }) => {
        asked.push(channel);
        await new Promise<void>((resolve) => (answer = resolve));
        return { ok: true, channel: { id: channel, is_private: true, name: 'ops', num_members: 3 } };
      },
    },
  } as unknown as WebClient;
  const caller = (async (call: { call: () => Promise<unknown> }) => call.call()) as unknown as SlackCaller;
  return { client, caller, asked, answer: () => answer?.() };
}

describe('Slack channel info', () => {
  it('asks Slack once for a burst of turns in one channel, and then serves them all from the cache', async () => {
    const { client, caller, asked, answer } = countingClient();
    const channelInfo = createSlackChannelInfo(client, caller);
    const burst = Array.from({ length: 4 }, () => channelInfo('C1'));
    await new Promise((resolve) => setImmediate(resolve));
    answer();
    const infos = await Promise.all(burst);
    expect(asked).toEqual(['C1']);
    expect(infos.every((info) => info.kind === 'private' && info.members === 3)).toBe(true);
    expect(await channelInfo('C1')).toMatchObject({ kind: 'private', name: 'ops' });
    expect(asked).toEqual(['C1']);
  });

  it('asks again after a failed answer: a refusal is not remembered', async () => {
    let calls = 0;
    const client = {
      conversations: {
        info: async () => {
          calls++;
          if (calls === 1) throw new Error('channel_not_found');
          return { ok: true, channel: { id: 'C2', is_private: false, num_members: 9 } };
        },
      },
    } as unknown as WebClient;
    const caller = (async (call: { call: () => Promise<unknown> }) => call.call()) as unknown as SlackCaller;
    const channelInfo = createSlackChannelInfo(client, caller);
    await expect(channelInfo('C2')).rejects.toThrow('channel_not_found');
    expect(await channelInfo('C2')).toMatchObject({ kind: 'public', members: 9 });
    expect(calls).toBe(2);
  });
});
