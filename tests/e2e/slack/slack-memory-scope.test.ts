/**
 * Issue 21 on the Slack emulator, end to end: a fact the model saves in private channel C_PRIVATE
 * (save_memory) is in no model request of a conversation in C_GENERAL and is in one in C_PRIVATE;
 * `/tsuka forget` from C_GENERAL does not find it, and in C_PRIVATE only its author or an admin may.
 * One app for every case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness();
});
afterAll(async () => {
  await harness?.stop();
});

const VAULT = 'The vault code for the sec team is 7421-alpha.';

/** Runs one conversation turn and returns the model requests it made. */
async function converse(channelId: string, text: string, replies: Parameters<SlackHarness['model']['enqueue']>[0][]): Promise<string[]> {
  const { slack, model } = harness;
  const before = model.requests.length;
  for (const reply of replies) model.enqueue(reply);
  const mention = await slack.mention({ userId: 'U1', channelId, text: `<@${slack.botUserId}> ${text}` });
  await slack.waitFor(() => harness.botReplies(channelId, mention.ts).some((message) => message.text.includes('Noted.') && buttonsOf(message).length === 0));
  return model.requests.slice(before).map((request) => JSON.stringify(request.body));
}

async function tsuka(text: string, channelId: string, userId: string): Promise<string> {
  const before = harness.slack.responses.length;
  await harness.slack.deliverSlashCommand({ command: '/tsuka', text, userId, channelId });
  await harness.slack.waitFor(() => harness.slack.responses.length > before);
  return String((harness.slack.responses.at(-1)!.body as { text?: string }).text);
}

describe('memory on Slack keeps to the channel where it was said', () => {
  it('a fact saved in C_PRIVATE is absent from every request in C_GENERAL and present in C_PRIVATE', async () => {
    const saving = await converse('C_PRIVATE', `obrien remember this: ${VAULT}`, [
      { toolCalls: [{ name: 'save_memory', arguments: { content: VAULT } }] },
      { text: 'Noted.' },
    ]);
    expect(saving.length).toBeGreaterThanOrEqual(2);
    expect(saving.at(-1)).toContain('Saved ');

    const general = await converse('C_GENERAL', 'obrien what is the vault code?', [{ text: 'Noted.' }]);
    expect(general.length).toBeGreaterThan(0);
    for (const request of general) expect(request).not.toContain('7421-alpha');

    const own = await converse('C_PRIVATE', 'obrien what is the vault code?', [{ text: 'Noted.' }]);
    expect(own[0]).toContain('7421-alpha');
  });

  it('forget from C_GENERAL finds nothing; in C_PRIVATE another member is refused', async () => {
    const listing = await tsuka('memory vault', 'C_PRIVATE', 'U1');
    const id = /`([0-9a-f]{6}-[0-9a-f]{8})`/.exec(listing)?.[1];
    expect(id, listing).toBeDefined();
    expect(await tsuka('memory vault', 'C_GENERAL', 'U1')).toBe('No memory matches "vault".');
    expect(await tsuka(`forget ${id}`, 'C_GENERAL', 'UADMIN')).toMatch(/^No fact with id/);
    expect(await tsuka(`forget ${id}`, 'C_PRIVATE', 'U2')).toMatch(/Only the person who saved/);
    expect(await tsuka('memory vault', 'C_PRIVATE', 'U2')).toContain(id!);
    expect(await tsuka(`forget ${id}`, 'C_PRIVATE', 'U1')).toBe(`Forgot ${id}.`);
  });
});
