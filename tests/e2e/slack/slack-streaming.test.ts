/** A workspace that refuses Slack's streaming methods: replies fall back to placeholder + chat.update, and the bot remembers. */
import { afterEach, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
afterEach(async () => {
  await harness?.stop();
});

describe('Slack streaming refused', () => {
  it('falls back to a placeholder edited in place, and does not try the streaming methods again', async () => {
    harness = await startSlackHarness({ emulator: { streamingRefusal: 'not_allowed' } });
    const { slack, model } = harness;
    const reply = 'Placeholder and edits still work. '.repeat(5).trim();
    model.enqueue({ text: reply, chunkSize: 12, delayMsBetweenChunks: 40 });
    const first = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi first` });
    await slack.waitFor(() => harness.botReplies('C1', first.ts).some((message) => message.text.includes(reply) && buttonsOf(message).length === 0), {
      timeoutMs: 10_000,
    });
    const [answer] = harness.botReplies('C1', first.ts);
    expect(answer!.username).toBe('Geordi');
    expect(answer!.stream).toBeUndefined();
    // Posted (placeholder or first words), then edited in place up to the whole reply.
    expect(answer!.history[0]!.length).toBeLessThan(reply.length);
    expect(answer!.edits).toBeGreaterThanOrEqual(1);
    expect(answer!.history.at(-1)).toContain(reply);
    expect(slack.calls.filter((call) => call.method === 'chat.startStream').map((call) => call.response.error)).toEqual(['not_allowed']);

    model.enqueue({ text: 'Second reply.' });
    const second = await slack.mention({ userId: 'U2', channelId: 'C2', text: `<@${slack.botUserId}> geordi second` });
    await slack.waitFor(() => harness.botReplies('C2', second.ts).some((message) => message.text.includes('Second reply.') && buttonsOf(message).length === 0));
    expect(slack.calls.filter((call) => call.method === 'chat.startStream')).toHaveLength(1);
    expect(harness.logs.join('\n')).toMatch(/streaming methods were refused/);
  });
});
