/**
 * Issue 35 on the Slack emulator, one app: the two-person rule follows what a DANGEROUS call can
 * touch. In a DM with the bot, or a private channel where the requester is the only person, the
 * default workspace is still the one #general works in: the requester's own Approve is refused and
 * the card names who may approve (an admin). A DM mapped to a workspace of its own keeps the
 * requester's decision.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness({ configFile: (home) => ({ channels: { D0OWN: { workspace: path.join(home, 'own-work') } } }) });
  const { slack } = harness;
  slack.defineChannel({ id: 'D0ANA', isIm: true, members: [slack.botUserId, 'U1'] });
  slack.defineChannel({ id: 'D0OWN', isIm: true, members: [slack.botUserId, 'U1'] });
  slack.defineChannel({ id: 'G_SOLO', name: 'ana-scratch', isPrivate: true, members: [slack.botUserId, 'U1'] });
  await mkdir(path.join(harness.home, 'own-work'), { recursive: true });
});
afterAll(async () => {
  await harness?.stop();
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Asks for a DANGEROUS delete_file in `channel` as U1; resolves to the card and the asking message. */
async function askToDelete(channel: string, file: string, direct: boolean) {
  const { slack, model } = harness;
  model.enqueue({ toolCalls: [{ name: 'delete_file', arguments: { path: file } }] });
  model.enqueue((body) => {
    const messages = (body as { messages: { role: string; content: string }[] }).messages;
    return { text: `Tool said: ${messages.filter((message) => message.role === 'tool').at(-1)!.content}` };
  });
  const asked = direct
    ? await slack.directMessage({ userId: 'U1', channelId: channel, text: `geordi delete ${file}` })
    : await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi delete ${file}` });
  const card = () => harness.botReplies(channel, asked.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));
  await slack.waitFor(() => card() !== undefined);
  return { asked, card: card()! };
}

function click(channel: string, card: { ts: string; thread_ts?: string; blocks?: unknown[] }, actionId: string, userId: string) {
  const button = buttonsOf(card).find((candidate) => candidate.action_id === actionId)!;
  return harness.slack.deliverBlockAction({ userId, channelId: channel, messageTs: card.ts, threadTs: card.thread_ts, actionId, value: button.value });
}

const answered = (channel: string, ts: string, text: string) =>
  harness.slack.waitFor(() => harness.botReplies(channel, ts).some((message) => message.text.includes(text) && buttonsOf(message).length === 0));

describe('the two-person rule follows the workspace', () => {
  it('in a DM and in a solo private channel on the shared workspace the requester alone cannot approve; the card names the admin', async () => {
    for (const [channel, direct] of [
      ['D0ANA', true],
      ['G_SOLO', false],
    ] as const) {
      const target = path.join(harness.workspace, `${channel}.txt`);
      await writeFile(target, 'shared with #general\n');
      const { asked, card } = await askToDelete(channel, `${channel}.txt`, direct);
      expect(card.text).toMatch(/DANGEROUS/);
      expect(card.text).toMatch(/workspace other channels share, so someone other than <@U1> must approve — an admin \(<@UADMIN>\)/);
      await click(channel, card, 'tsuka_approve', 'U1');
      await harness.slack.waitFor(() =>
        harness.slack.ephemerals.some((message) => message.user === 'U1' && message.channel === channel && /someone else/.test(message.text)),
      );
      expect(buttonsOf(harness.slack.messages(channel).find((message) => message.ts === card.ts)!)).toHaveLength(2);
      expect(await exists(target)).toBe(true);
      await click(channel, card, 'tsuka_deny', 'U1');
      await answered(channel, asked.ts, 'Tool said: Denied');
      expect(await exists(target)).toBe(true);
    }
  });

  it('in a DM with a workspace of its own the requester decides', async () => {
    const target = path.join(harness.home, 'own-work', 'scratch.txt');
    await writeFile(target, 'mine only\n');
    const { asked, card } = await askToDelete('D0OWN', 'scratch.txt', true);
    expect(card.text).toMatch(/Only <@U1> or an admin can decide/);
    await click('D0OWN', card, 'tsuka_approve', 'U1');
    await answered('D0OWN', asked.ts, 'Tool said:');
    expect(await exists(target)).toBe(false);
  });
});
