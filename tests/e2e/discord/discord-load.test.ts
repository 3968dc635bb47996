/** Twenty people mention the bot in one channel at once: every reply completes, and Discord's 429s are absorbed by discord.js. */
import { afterEach, describe, expect, it } from 'vitest';
import { buttonsOf, startDiscordHarness, type DiscordHarness } from './discord-harness.js';

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('Discord under load', () => {
  it('answers 20 simultaneous mentions in one channel, complete, with 429s absorbed', async () => {
    // Stricter than Discord's 5 writes per 5 s per channel, so real 429s happen and must be retried.
    harness = await startDiscordHarness({ emulator: { rateLimits: { messagesPerChannelPer5s: 2 } }, pacing: { editSpacingMsPerChannel: 1000 } });
    const { discord, model } = harness;
    for (let index = 0; index < 20; index++) {
      model.enqueue((body) => {
        const question = (body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
        return { text: `Answer to ${question}: ${'detail '.repeat(30).trim()} END`, chunkSize: 40, delayMsBetweenChunks: 5 };
      });
    }
    const questions = Array.from({ length: 20 }, (_, index) =>
      harness!.mention({ userId: `12500000000000010${String(index).padStart(2, '0')}`, content: `geordi question ${index}` }),
    );
    const complete = (threadId: string, index: number) =>
      harness!
        .botReplies(threadId)
        .some((message) => message.content.includes(`Answer to question ${index}:`) && message.content.includes('END') && buttonsOf(message).length === 0);
    await discord.waitFor(() => questions.every((question, index) => complete(question.id, index)), { timeoutMs: 45_000 });
    for (const [index, question] of questions.entries()) {
      const replies = harness.botReplies(question.id);
      expect(replies).toHaveLength(1);
      expect(replies[0]!.content).not.toMatch(/⚠️|rate limit/i);
      expect(replies[0]!.username).toBe('Geordi');
      expect(replies[0]!.content).toContain(`question ${index}`);
    }
    expect(discord.threads()).toHaveLength(20);
    // One shared webhook and one of Geordi's own, however many mentions arrive at once.
    expect(discord.webhooks().map((hook) => hook.name)).toEqual(['TSUKA', 'TSUKA:geordi']);
    // 429s did happen and were all retried: every refused request has a later success.
    expect(discord.rateLimited.length).toBeGreaterThan(0);
    expect(discord.calls.filter((call) => call.status >= 400 && call.status !== 429)).toEqual([]);
  }, 60_000);
});
