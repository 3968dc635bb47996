/** Twenty people mention the bot in one channel at once: every reply completes and no rate limit reaches anyone. */
import { afterEach, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
afterEach(async () => {
  await harness?.stop();
});

describe('Slack under load', () => {
  it('answers 20 simultaneous mentions in one channel, complete, with 429s absorbed', async () => {
    // The emulator is stricter than the bot's own limiter, so real 429s happen and must be retried.
    harness = await startSlackHarness({
      emulator: { rateLimits: { postMessageBurst: 2, postMessagePerChannelPerSecond: 8, updatePerMinute: 1200 } },
      rateLimits: { postBurst: 10, postsPerSecondPerChannel: 12, updatesPerMinute: 1500 },
    });
    const { slack, model } = harness;
    for (let index = 0; index < 20; index++) {
      model.enqueue((body) => {
        const question = (body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
        return { text: `Answer to ${question}: ${'detail '.repeat(30).trim()} END`, chunkSize: 40, delayMsBetweenChunks: 5 };
      });
    }
    const mentions = await Promise.all(
      Array.from({ length: 20 }, (_, index) => slack.mention({ userId: `U${index}`, channelId: 'C1', text: `<@${slack.botUserId}> geordi question ${index}` })),
    );
    const complete = (ts: string, index: number) =>
      harness
        .botReplies('C1', ts)
        .some((message) => message.text.includes(`Answer to question ${index}:`) && message.text.includes('END') && buttonsOf(message).length === 0);
    await slack.waitFor(() => mentions.every((mention, index) => complete(mention.ts, index)), { timeoutMs: 60_000 });
    for (const [index, mention] of mentions.entries()) {
      const replies = harness.botReplies('C1', mention.ts);
      expect(replies).toHaveLength(1);
      expect(replies[0]!.text).not.toMatch(/⚠️|ratelimited|rate limit/i);
      expect(replies[0]!.text).toContain(`question ${index}`);
    }
    expect(Math.max(...mentions.map((mention) => mention.ackMs))).toBeLessThan(3000);
    expect(slack.ephemerals).toHaveLength(0);
    // 429s did happen (the emulator is stricter) and were all absorbed by retries.
    expect(slack.rateLimited.length).toBeGreaterThan(0);
    // Paced by Slack's limits on purpose: it takes seconds, more on a busy machine.
  }, 45_000);
});
