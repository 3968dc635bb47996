/** A flaky Discord (issue 17): a malformed gateway dispatch is dropped, and the next mention is answered. */
import { afterEach, describe, expect, it } from 'vitest';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.js';

let harness: DiscordHarness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('Discord faults', () => {
  it('logs and drops a MESSAGE_CREATE dispatch without data, then answers the next mention', async () => {
    harness = await startDiscordHarness();
    const { discord, model } = harness;
    // discord.js reads `d.channel_id` of this one and throws inside its async gateway handler.
    discord.dispatch('MESSAGE_CREATE', null);
    model.enqueue({ text: 'Still here.' });
    const question = harness.mention({ content: 'geordi are you alive?' });
    await harness.waitForReply(question.id, 'Still here.');
    expect(harness.logs.join('\n')).toMatch(/Discord gateway event dropped: malformed/);
    expect(model.requests).toHaveLength(1);
  });
});
