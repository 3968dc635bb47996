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

describe('Slack streaming offered', () => {
  it('shows a Stop button beside a streamed reply from its start; a click stops the model call, the thread says who, the button goes away', async () => {
    harness = await startSlackHarness();
    const { slack, model } = harness;
    // A slow reply: 200 words at 40 ms each, far longer than the test runs once stopped.
    const words = Array.from({ length: 200 }, (_, index) => `word${index}`);
    model.enqueue({ text: words.join(' '), chunkSize: 6, delayMsBetweenChunks: 40 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi count slowly` });
    const hasStop = (message: { blocks?: unknown[] }) => buttonsOf(message).some((button) => button.action_id === 'tsuka_stop');
    await slack.waitFor(() => harness.botReplies('C1', mention.ts).some((message) => message.stream === 'open' && message.appends! >= 1));
    const companion = harness.botReplies('C1', mention.ts).find(hasStop);
    expect(companion, 'a Stop button while the reply streams').toBeDefined();
    expect(companion!.text).toMatch(/Geordi is replying/);
    // The button was there before the reply's first words.
    const posted = slack.calls.findIndex((call) => call.method === 'chat.postMessage' && call.response.ts === companion!.ts);
    expect(posted).toBeLessThan(slack.calls.findIndex((call) => call.method === 'chat.startStream'));

    const stop = buttonsOf(companion!).find((button) => button.action_id === 'tsuka_stop')!;
    const click = await slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C1',
      messageTs: companion!.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_stop',
      value: stop.value,
    });
    expect(click.ackMs).toBeLessThan(3000);
    await slack.waitFor(() => harness.botReplies('C1', mention.ts).some((message) => message.stream === 'stopped'));
    const replies = harness.botReplies('C1', mention.ts);
    const answer = replies.find((message) => message.stream === 'stopped')!;
    expect(answer.text).toContain('⏹ Stopped by <@U1>.');
    // The model call ended: the reply holds the first words only.
    expect(answer.text).toContain('word0');
    expect(answer.text).not.toContain('word199');
    // The companion is gone once the reply ended.
    expect(replies.some(hasStop)).toBe(false);
    expect(slack.calls.some((call) => call.method === 'chat.delete' && call.response.ok)).toBe(true);
  });
});
