/** A mention on Slack, end to end: threaded, streamed, under the character's name; follow-ups; duplicates; long replies. */
import { describe, expect, it } from 'vitest';
import { buttonsOf, useSlackHarness } from './slack-harness.js';

// One app for the file; each test has a channel of its own and counts the model's requests from its start.
const shared = useSlackHarness();

function fencesBalanced(text: string): boolean {
  return text.split('\n').filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}

describe('Slack mentions', () => {
  it("streams a threaded reply under the character name with Slack's streaming methods, the thread acknowledged first", async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const requestsBefore = model.requests.length;
    const callsBefore = slack.calls.length;
    const reply = 'The tests fail because the fixture path moved. '.repeat(6).trim();
    model.enqueue({ text: reply, chunkSize: 12, delayMsBetweenChunks: 40 });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi why does npm test fail?` });
    expect(mention.ackMs).toBeLessThan(3000);
    await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes(reply) && message.stream === 'stopped'), {
      timeoutMs: 10_000,
    });
    const [answer] = harness.botReplies(channel, mention.ts);
    expect(answer!.thread_ts).toBe(mention.ts);
    expect(answer!.username).toBe('Geordi');
    expect(answer!.icon_emoji).toMatch(/^:[a-z_]+:$/);
    expect(buttonsOf(answer!)).toEqual([]);
    // The stream started with the first words (no placeholder, no 256-character buffer) and grew to the whole reply.
    expect(answer!.history[0]!.length).toBeLessThan(reply.length);
    expect(reply.startsWith(answer!.history[0]!.trim())).toBe(true);
    expect(answer!.history.at(-1)).toContain(reply);
    expect(answer!.edits).toBe(0);
    const start = slack.calls.slice(callsBefore).find((call) => call.method === 'chat.startStream');
    expect(start?.body).toMatchObject({ recipient_user_id: 'U1', recipient_team_id: slack.teamId, thread_ts: mention.ts });
    expect(slack.calls.slice(callsBefore).filter((call) => call.method === 'chat.stopStream')).toHaveLength(1);
    // The mention was acknowledged in the thread before the first text.
    const status = slack.statuses.find((entry) => entry.thread_ts === mention.ts);
    expect(status?.status).toMatch(/💭/);
    expect(status!.at).toBeLessThanOrEqual(start!.at);
    // The model saw the question, without the bot mention or the character name.
    const request = model.requests.slice(requestsBefore)[0]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages.at(-1)!.content).toBe('why does npm test fail?');
    expect(request.messages[0]!.content).toMatch(/Geordi/);
  });

  it('continues the session on a follow-up in the thread, with the same character and its history', async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const requestsBefore = model.requests.length;
    model.enqueue({ text: 'First answer.' });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> spock what is BM25?` });
    await slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('First answer.') && buttonsOf(message).length === 0),
    );
    model.enqueue({ text: 'Second answer.' });
    await slack.threadMessage({ userId: 'U1', channelId: channel, threadTs: mention.ts, text: 'and how does it rank?' });
    await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Second answer.')));
    const replies = harness.botReplies(channel, mention.ts);
    expect(replies.every((message) => message.username === 'Spock')).toBe(true);
    const second = model.requests.slice(requestsBefore)[1]!.body as { messages: { role: string; content: string }[] };
    const contents = second.messages.map((message) => message.content);
    expect(contents).toContain('what is BM25?');
    expect(contents).toContain('First answer.');
    expect(contents.at(-1)).toBe('and how does it rank?');

    // Issue 21, thread etiquette: a colleague talking to the starter is not answered, and is heard by the next turn.
    await slack.threadMessage({ userId: 'U2', channelId: channel, threadTs: mention.ts, text: '<@U1> did you see the deploy? BM25 index is stale' });
    const thread = `slack:${slack.teamId}/${channel}/${mention.ts}`;
    await expect.poll(async () => (await harness.app.engine.sessions.get(thread))?.sideTalk?.length ?? 0).toBe(1);
    model.enqueue({ text: 'Third answer.' });
    await slack.threadMessage({ userId: 'U2', channelId: channel, threadTs: mention.ts, text: 'spock should we rebuild it?' });
    await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Third answer.')));
    expect(model.requests.slice(requestsBefore)).toHaveLength(3);
    const third = model.requests.slice(requestsBefore)[2]!.body as { messages: { role: string; content: string }[] };
    expect(third.messages.at(-1)!.content).toContain('BM25 index is stale');
    expect(third.messages.at(-1)!.content).toContain('should we rebuild it?');
  });

  it('hands over to another character mentioned in the thread, who sees the history', async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const requestsBefore = model.requests.length;
    model.enqueue({ text: 'Geordi here.' });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi check the api` });
    await slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Geordi here.') && buttonsOf(message).length === 0),
    );
    model.enqueue({ text: 'Worf reviewing.' });
    await slack.mention({ userId: 'U1', channelId: channel, threadTs: mention.ts, text: `<@${slack.botUserId}> worf is this safe?` });
    await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Worf reviewing.')));
    expect(harness.botReplies(channel, mention.ts).at(-1)!.username).toBe('Worf');
    const request = model.requests.slice(requestsBefore)[1]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages.map((message) => message.content)).toContain('Geordi here.');
  });

  it('answers a re-delivered event once', async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const requestsBefore = model.requests.length;
    model.enqueue({ text: 'Only once.' });
    model.enqueue({ text: 'TWICE — this must not be posted.' });
    const otherChannel = harness.newChannel();
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> hello` });
    await slack.deliverEvent(mention.event, { eventId: mention.eventId, retryAttempt: 1, retryReason: 'timeout' });
    await slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Only once.') && buttonsOf(message).length === 0),
    );
    // A later event proves the bot has processed everything before it.
    const other = await slack.mention({ userId: 'U1', channelId: otherChannel, text: `<@${slack.botUserId}> second question` });
    await slack.waitFor(() => harness.botReplies(otherChannel, other.ts).length > 0 && buttonsOf(harness.botReplies(otherChannel, other.ts)[0]!).length === 0);
    expect(harness.botReplies(channel, mention.ts)).toHaveLength(1);
    expect(model.requests.slice(requestsBefore)).toHaveLength(2);
  });

  it('splits a 12,000-character reply with code blocks into parts ≤ 3,900 without breaking a fence', async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const block = (n: number) => `\`\`\`python\n${Array.from({ length: 60 }, (_, i) => `print("block ${n} line ${i}")`).join('\n')}\n\`\`\``;
    const text = Array.from({ length: 9 }, (_, n) => `Step ${n}: run this.\n\n${block(n)}`).join('\n\n');
    expect(text.length).toBeGreaterThan(12_000);
    model.enqueue({ text, chunkSize: 2000 });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi write the scripts` });
    await slack.waitFor(
      () => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('print("block 8 line 59")') && buttonsOf(message).length === 0),
      { timeoutMs: 15_000 },
    );
    const parts = harness.botReplies(channel, mention.ts);
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const part of parts) {
      expect(part.text.length).toBeLessThanOrEqual(3900);
      expect(fencesBalanced(part.text)).toBe(true);
      expect(part.username).toBe('Geordi');
    }
    const lines =
      parts
        .map((part) => part.text)
        .join('\n')
        .match(/print\("block \d+ line \d+"\)/g) ?? [];
    expect(new Set(lines).size).toBe(9 * 60);
  });

  it('ignores messages from bots, and thread messages in threads it is not part of', async () => {
    const harness = shared();
    const { slack, model } = harness;
    const channel = harness.newChannel();
    const requestsBefore = model.requests.length;
    await slack.threadMessage({ userId: 'U1', channelId: channel, threadTs: '1700000000.000100', text: 'unrelated chatter' });
    // Another bot mentioning this one (bots looping on each other is the classic failure).
    await slack.deliverEvent({
      type: 'app_mention',
      user: 'UOTHERBOT',
      bot_id: 'B0OTHER',
      text: `<@${slack.botUserId}> geordi hi`,
      ts: '1700000001.000100',
      channel,
      event_ts: '1700000001.000100',
    });
    model.enqueue({ text: 'Hello human.' });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> hi` });
    await slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Hello human.')));
    expect(model.requests.slice(requestsBefore)).toHaveLength(1);
  });
});
