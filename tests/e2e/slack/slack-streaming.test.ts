/** A workspace that refuses Slack's streaming methods: replies fall back to placeholder + chat.update, and the bot remembers. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
afterEach(async () => {
  // The shared bot of a describe block is stopped by that block.
  if (harness && !shared.has(harness)) await harness.stop();
});
const shared = new Set<SlackHarness>();

type Chunk = { type: string; id?: string; title?: string; status?: string; output?: string; text?: string; sources?: unknown[] };
/** The task cards of a streamed message: each task's updates in order. */
const tasksOf = (message: { chunks?: Record<string, unknown>[] }) => {
  const tasks = new Map<string, Chunk[]>();
  for (const chunk of (message.chunks ?? []) as Chunk[]) if (chunk.type === 'task_update') tasks.set(chunk.id!, [...(tasks.get(chunk.id!) ?? []), chunk]);
  return tasks;
};
const ORDER = ['pending', 'in_progress', 'complete', 'error'];

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
  // One bot for the cases below; the refusal of task cards (remembered for the workspace) comes last.
  let offered: SlackHarness;
  beforeAll(async () => {
    // Several replies stream at once in one case below. A workspace without agent sessions: the Stop
    // is the companion's (with sessions it is Slack's own, slack-agent-sessions.test.ts).
    offered = await startSlackHarness({ environment: { TSUKA_LLM_CONCURRENCY: '10' }, emulator: { agentSessions: { refusal: 'not_allowed' } } });
    shared.add(offered);
    await mkdir(offered.workspace, { recursive: true });
    await writeFile(path.join(offered.workspace, 'package.json'), '{"name": "tsuka-demo"}\n');
  });
  afterAll(async () => {
    await offered?.stop();
  });

  it('shows a Stop button beside a streamed reply from its start; a click stops the model call, the thread says who, the button goes away', async () => {
    harness = offered;
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

  it('keeps a long reply moving while other streams are open: it gets appendStream calls before its stopStream', async () => {
    harness = offered;
    const { slack, model } = harness;
    const others = ['C21', 'C22', 'C23', 'C24', 'C25', 'C26', 'C27', 'C28'];
    // The long reply streams for about 4 s; each other one shows its first words, then the rest
    // comes slowly, so all of them stay open while the long one streams.
    const scripted = (body: unknown) => {
      const question = (body as { messages: { content: string }[] }).messages.at(-1)!.content;
      return question.includes('long')
        ? { text: `Long: ${'step '.repeat(40)}done.`, chunkSize: 5, delayMsBetweenChunks: 100 }
        : { text: `Other ${question.slice(-2)}. Rest.`, chunkSize: 10, delayMsBetweenChunks: 2_500 };
    };
    for (let index = 0; index <= others.length; index++) model.enqueue(scripted);
    const long = await slack.mention({ userId: 'U1', channelId: 'C20', text: `<@${slack.botUserId}> geordi long` });
    const mentions = await Promise.all(
      others.map((channel, index) => slack.mention({ userId: 'U2', channelId: channel, text: `<@${slack.botUserId}> geordi other o${index}` })),
    );
    const stopped = (channel: string, ts: string, end: string) =>
      harness.botReplies(channel, ts).some((message) => message.stream === 'stopped' && message.text.includes(end));
    await slack.waitFor(() => stopped('C20', long.ts, 'done.'), { timeoutMs: 20_000 });
    const othersOpen = others.filter((channel, index) => !stopped(channel, mentions[index]!.ts, 'Rest.')).length;
    const start = slack.calls.find((call) => call.method === 'chat.startStream' && call.body.thread_ts === long.ts)!;
    const streamed = slack.calls.filter((call) => ['chat.appendStream', 'chat.stopStream'].includes(call.method) && call.body.ts === start.response.ts);
    expect(streamed.at(-1)!.method).toBe('chat.stopStream');
    expect(streamed.filter((call) => call.method === 'chat.appendStream').length).toBeGreaterThanOrEqual(1);
    // The others were still streaming when the long reply ended.
    expect(othersOpen).toBeGreaterThan(0);
    await slack.waitFor(() => others.every((channel, index) => stopped(channel, mentions[index]!.ts, 'Rest.')), { timeoutMs: 30_000 });
  }, 45_000);

  it('shows each tool call as a task card between the text, from running to complete or error, with the compact result', async () => {
    harness = offered;
    const { slack, model } = harness;
    model.enqueue({
      text: 'Let me look at the manifest.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'package.json' } },
        { name: 'read_file', arguments: { path: 'missing.txt' } },
      ],
    });
    model.enqueue({ text: 'The package is called tsuka-demo.', chunkSize: 8, delayMsBetweenChunks: 20 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C3', text: `<@${slack.botUserId}> geordi what is the package called?` });
    await slack.waitFor(() => harness.botReplies('C3', mention.ts).some((message) => message.stream === 'stopped' && message.text.includes('tsuka-demo.')));
    const answer = harness.botReplies('C3', mention.ts).find((message) => message.stream === 'stopped')!;
    expect(answer.taskDisplayMode).toBe('timeline');
    const tasks = tasksOf(answer);
    expect([...tasks.values()].map((updates) => updates[0]!.title)).toEqual(['read_file package.json', 'read_file missing.txt']);
    const [found, missing] = [...tasks.values()];
    expect(found!.at(-1)).toMatchObject({ status: 'complete', output: expect.stringMatching(/\S/) });
    expect(missing!.at(-1)).toMatchObject({ status: 'error' });
    // Each card only moves forward: running first, then its end.
    for (const updates of tasks.values()) {
      const steps = updates.map((update) => ORDER.indexOf(update.status!));
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      expect(updates[0]!.status).toBe('in_progress');
    }
    // In order: the text before the calls, the two cards, the answer after them; no tool line in the text.
    const kinds = (answer.chunks as Chunk[]).map((chunk) => (chunk.type === 'task_update' ? `task:${chunk.title}` : chunk.type));
    const firstTask = kinds.indexOf('task:read_file package.json');
    expect(kinds.slice(0, firstTask)).toContain('markdown_text');
    expect(answer.text.indexOf('manifest.')).toBeLessThan(answer.text.indexOf('tsuka-demo.'));
    const lastTask = kinds.lastIndexOf('task:read_file missing.txt');
    expect(answer.text).not.toMatch(/🔧 read_file/);
    const after = (answer.chunks as Chunk[])
      .slice(lastTask + 1)
      .filter((chunk) => chunk.type === 'markdown_text')
      .map((chunk) => chunk.text)
      .join('');
    expect(after).toContain('tsuka-demo.');
  });

  it('where the workspace refuses task cards, the tool calls are text lines again, and the bot remembers', async () => {
    harness = offered;
    const { slack, model } = harness;
    slack.setTaskChunksRefusal('invalid_chunks');
    model.enqueue({ text: 'Checking.', toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }] });
    model.enqueue({ text: 'It is tsuka-demo.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C4', text: `<@${slack.botUserId}> geordi name?` });
    await slack.waitFor(() =>
      harness.botReplies('C4', mention.ts).some((message) => message.stream === 'stopped' && message.text.includes('It is tsuka-demo.')),
    );
    const answer = harness.botReplies('C4', mention.ts).find((message) => message.stream === 'stopped')!;
    expect(answer.text).toMatch(/Checking\.\n+🔧 read_file package\.json — [^\n]+\n+It is tsuka-demo\./);
    expect(tasksOf(answer).size).toBe(0);
    const refused = slack.calls.filter((call) => call.response.error === 'invalid_chunks');
    expect(refused).toHaveLength(1);
    expect(harness.logs.join('\n')).toMatch(/refused task cards/);

    // The next reply does not try the cards again.
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }] });
    model.enqueue({ text: 'Same answer.' });
    const again = await slack.mention({ userId: 'U1', channelId: 'C5', text: `<@${slack.botUserId}> geordi again?` });
    await slack.waitFor(() => harness.botReplies('C5', again.ts).some((message) => message.text.includes('Same answer.') && message.stream !== 'open'));
    expect(slack.calls.filter((call) => call.response.error === 'invalid_chunks')).toHaveLength(1);
    expect(harness.botReplies('C5', again.ts).find((message) => message.text.includes('Same answer.'))!.text).toMatch(/🔧 read_file package\.json — /);
  });
});
