/**
 * Issue 35 on the Slack emulator: the person who started a bot thread can talk to a colleague in
 * it. "<@U2> did you see the deploy?" from the starter addresses a person and no character: it is
 * side talk (no turn, no reply) and reaches the next turn as what was said between people; the
 * starter's next plain message is answered as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness();
});
afterAll(async () => {
  await harness?.stop();
});

type ModelBody = { messages: { role: string; content: unknown }[] };
const lastUserText = (body: unknown) => JSON.stringify((body as ModelBody).messages.filter((message) => message.role === 'user').at(-1)?.content);

describe('side talk in a bot thread', () => {
  it('the starter addressing a colleague is not answered by the character; the words reach the next turn', async () => {
    const { slack, model } = harness;
    model.enqueue({ text: 'The deploy failed on web-2.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi why did the deploy fail?` });
    await slack.waitFor(() => harness.botReplies('C1', mention.ts).some((message) => message.text.includes('The deploy failed on web-2.')));
    expect(model.requests).toHaveLength(1);

    await slack.threadMessage({ userId: 'U1', channelId: 'C1', threadTs: mention.ts, text: '<@U2> did you see the deploy? ERR_DISK_FULL again' });
    // Kept for the next turn, not answered: the thread's session holds it as side talk.
    const thread = `slack:${slack.teamId}/C1/${mention.ts}`;
    await expect
      .poll(async () => (await harness.app.engine.sessions.get(thread))?.sideTalk?.map((entry) => entry.text) ?? [], { interval: 20, timeout: 5000 })
      .toEqual(['<@U2> did you see the deploy? ERR_DISK_FULL again']);

    model.enqueue({ text: 'Clean /var/log first.' });
    await slack.threadMessage({ userId: 'U1', channelId: 'C1', threadTs: mention.ts, text: 'what should we clean first?' });
    await slack.waitFor(() => harness.botReplies('C1', mention.ts).some((message) => message.text.includes('Clean /var/log first.')));
    expect(model.requests).toHaveLength(2);
    const asked = lastUserText(model.requests[1]!.body);
    expect(asked).toContain('Meanwhile in this thread');
    expect(asked).toContain('did you see the deploy? ERR_DISK_FULL again');
    expect(asked).toContain('what should we clean first?');
    expect(harness.botReplies('C1', mention.ts).filter((message) => /web-2|var\/log/.test(message.text))).toHaveLength(2);
  });
});
