/**
 * Issue 21 on the Slack emulator: two channels mapped to two workspaces in the `channels` section
 * (one by `#name`, read from conversations.info) — an agent in #general cannot read the file of
 * #sec-private's workspace, the one in #sec-private can; a character the channel does not allow is
 * refused privately. One app for both cases.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness({
    configFile: (home) => ({
      channels: {
        '#sec-private': { workspace: path.join(home, 'sec-work'), characters: ['geordi', 'worf'], dangerousApproval: 'admin' },
        C_GENERAL: { workspace: path.join(home, 'web-work') },
      },
    }),
  });
  harness.slack.defineChannel({ id: 'G_SEC', name: 'sec-private', isPrivate: true, members: [harness.slack.botUserId, 'U1', 'U2'] });
  await mkdir(path.join(harness.home, 'sec-work'), { recursive: true });
  await writeFile(path.join(harness.home, 'sec-work', 'vault.txt'), 'vault code 7741-omega\n');
});
afterAll(async () => {
  await harness?.stop();
});

async function converse(channelId: string, text: string, replies: Parameters<SlackHarness['model']['enqueue']>[0][], done: string) {
  const { slack, model } = harness;
  const before = model.requests.length;
  for (const reply of replies) model.enqueue(reply);
  const mention = await slack.mention({ userId: 'U1', channelId, text: `<@${slack.botUserId}> ${text}` });
  await slack.waitFor(() => harness.botReplies(channelId, mention.ts).some((message) => message.text.includes(done) && buttonsOf(message).length === 0));
  return { mention, requests: model.requests.slice(before).map((request) => JSON.stringify(request.body)) };
}

describe('channels with workspaces of their own', () => {
  it("#general's agent cannot read #sec-private's files; #sec-private's can", async () => {
    const general = await converse(
      'C_GENERAL',
      'geordi read vault.txt',
      [{ toolCalls: [{ name: 'read_file', arguments: { path: 'vault.txt' } }] }, { text: 'Done here.' }],
      'Done here.',
    );
    expect(general.requests.join('\n')).not.toContain('7741-omega');
    const sec = await converse(
      'G_SEC',
      'geordi read vault.txt',
      [{ toolCalls: [{ name: 'read_file', arguments: { path: 'vault.txt' } }] }, { text: 'Read it.' }],
      'Read it.',
    );
    expect(sec.requests.at(-1)).toContain('7741-omega');
  });

  it('a character the channel does not allow is refused privately, and nothing runs', async () => {
    const before = harness.model.requests.length;
    await harness.slack.mention({ userId: 'U1', channelId: 'G_SEC', text: `<@${harness.slack.botUserId}> spock what do you think?` });
    await harness.slack.waitFor(() =>
      harness.slack.ephemerals.some((message) => /Spock is not available in this channel\. Here: geordi, worf/.test(message.text)),
    );
    expect(harness.model.requests).toHaveLength(before);
  });
});
