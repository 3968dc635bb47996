/** /call and /team from Slack slash commands: the whole bot, the real Bolt, the Slack emulator and a scripted model server. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buttonsOf, useSlackHarness, type SlackHarness } from './slack-harness.js';

// A thread of many messages: the per-channel post pacing is raised (as in slack-load) so the test stays fast.
const FAST = {
  emulator: { rateLimits: { postMessageBurst: 10, postMessagePerChannelPerSecond: 20, updatePerMinute: 1200 } },
  rateLimits: { postBurst: 10, postsPerSecondPerChannel: 20, updatesPerMinute: 1200 },
};

// One app for the file; each test has a channel of its own.
const shared = useSlackHarness(FAST);

type Body = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };
const lastUser = (body: unknown): string => [...(body as Body).messages].reverse().find((message) => message.role === 'user')?.content ?? '';

function rootOf(h: SlackHarness, channel: string, prefix: string) {
  return h.slack
    .messages(channel)
    .find((message) => message.bot_id && message.text.startsWith(prefix) && (!message.thread_ts || message.thread_ts === message.ts));
}

describe('Slack workflows', () => {
  it('/call: root message, then round markers, each turn under its identity, and the synthesis in the thread', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const speaker = (body: unknown) =>
      /You are (\w+) in a debate/.exec(lastUser(body))?.[1] ?? /As (\w+), write the closing synthesis/.exec(lastUser(body))?.[1] ?? '?';
    harness.model.enqueue((body) => ({ text: `${speaker(body)}: sessions fit Redis.` }));
    harness.model.enqueue((body) => ({
      text: `${speaker(body)}: ${lastUser(body).includes('[Geordi]: "Geordi: sessions fit Redis."') ? 'I read Geordi.' : 'no transcript'}`,
    }));
    harness.model.enqueue((body) => ({ text: `${speaker(body)} sums up: cache with a TTL.` }));
    const delivery = await harness.slack.deliverSlashCommand({
      command: '/call',
      text: '@geordi @Spock "Should we cache sessions in Redis?" rounds=1',
      userId: 'U1',
      channelId: channel,
    });
    expect(delivery.ackMs).toBeLessThan(3000);
    await harness.slack.waitFor(() => Boolean(rootOf(harness, channel, '📞')));
    const root = rootOf(harness, channel, '📞')!;
    expect(root.text).toContain('Call by <@U1>: Should we cache sessions in Redis? — Geordi, Spock');
    await harness.slack.waitFor(() => harness.botReplies(channel, root.ts).some((message) => message.text.includes('Verdict')));
    const thread = harness.botReplies(channel, root.ts).filter((message) => !message.text.startsWith('🛰'));
    expect(thread.map((message) => [message.username ?? 'bot', message.text.trim()])).toEqual([
      ['bot', '— Round 1 of 1 —'],
      ['Geordi', 'Geordi: sessions fit Redis.'],
      ['Spock', 'Spock: I read Geordi.'],
      // No supervisor among the participants: TSUKA moderates (issue 28), not the last speaker.
      ['bot', '— Synthesis by TSUKA —'],
      ['TSUKA', 'TSUKA sums up: cache with a TTL.'],
      ['bot', expect.stringContaining('✅ Call finished.')],
      ['bot', expect.stringContaining('Verdict')],
    ]);
    expect(thread.find((message) => message.username === 'Geordi')!.icon_emoji).toBe(':wrench:');
    const card = harness.botReplies(channel, root.ts).find((message) => message.text.startsWith('🛰'))!;
    expect(buttonsOf(card)).toHaveLength(0);
    // The debaters get no tools; the moderator only record_decision (issue 35).
    expect((harness.model.requests.at(-2)!.body as Body).tools).toBeUndefined();
    expect(((harness.model.requests.at(-1)!.body as Body).tools ?? []).map((tool) => tool.function.name)).toEqual(['record_decision']);
    // The closing stats as a picture in the thread: a PNG drawn without a browser, with its words as alt text.
    await harness.slack.waitFor(() => harness.slack.files.some((file) => file.name === 'call-stats.png'));
    const chart = harness.slack.files.find((file) => file.name === 'call-stats.png')!;
    expect(chart.thread_ts).toBe(root.ts);
    expect(chart.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(chart.bytes.readUInt32BE(16)).toBe(1280);
  });

  it('/team dev_security "task": orchestrated run with a tool approval in the thread', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    harness.model.enqueue({ toolCalls: [{ name: 'route_next', arguments: { agent: 'geordi', reason: 'he builds' } }] });
    harness.model.enqueue({ text: 'Geordi, over to you.' });
    harness.model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'mkdir build' } }] });
    harness.model.enqueue({ toolCalls: [{ name: 'report_status', arguments: { status: 'COMPLETED', summary: 'build folder made' } }] });
    harness.model.enqueue({ text: 'Made the build folder.' });
    harness.model.enqueue({ toolCalls: [{ name: 'route_next', arguments: { agent: 'END', reason: 'done' } }] });
    harness.model.enqueue({ text: 'We are done.' });
    await harness.slack.deliverSlashCommand({ command: '/team', text: 'dev_security "Create the build folder"', userId: 'U1', channelId: channel });
    await harness.slack.waitFor(() => Boolean(rootOf(harness, channel, '👥')));
    const root = rootOf(harness, channel, '👥')!;
    // Slack text is escaped (&amp;): the team name arrives as Slack shows it.
    expect(root.text).toContain('Dev &amp; Security');
    expect(root.text).toContain('Create the build folder');
    expect(root.text).not.toContain('dev_security "Create');
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, root.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve')),
    );
    const prompt = harness.botReplies(channel, root.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'))!;
    expect(prompt.text).toContain('mkdir build');
    const button = buttonsOf(prompt).find((candidate) => candidate.action_id === 'tsuka_approve')!;
    await harness.slack.deliverBlockAction({
      userId: 'U1',
      channelId: channel,
      messageTs: prompt.ts,
      threadTs: root.ts,
      actionId: 'tsuka_approve',
      value: button.value,
    });
    await harness.slack.waitFor(() => harness.botReplies(channel, root.ts).some((message) => message.text.includes('Team run completed')));
    const thread = harness.botReplies(channel, root.ts);
    // Geordi's reply goes on below the approval card that his command asked for (issue 24: the order of events).
    expect(thread.filter((message) => message.username).map((message) => message.username)).toEqual(['Pike', 'Geordi', 'Geordi', 'Pike']);
    const [asking, after] = thread.filter((message) => message.username === 'Geordi');
    expect(Number(asking!.ts)).toBeLessThan(Number(prompt.ts));
    expect(Number(after!.ts)).toBeGreaterThan(Number(prompt.ts));
    // The command is a task card of Geordi's reply (issue 24): pending above the card, complete below it once approved and run.
    const cardsOf = (message: { chunks?: Record<string, unknown>[] }) =>
      ((message.chunks ?? []) as { type: string; title?: string; status?: string }[]).filter(
        (chunk) => chunk.type === 'task_update' && chunk.title === 'execute_command mkdir build',
      );
    expect(cardsOf(asking!).map((card) => card.status)).toEqual(['pending', 'pending']);
    expect(cardsOf(after!).map((card) => card.status)).toEqual(['complete']);
    const geordi = after!;
    // The run's plan: Geordi's step waited for the approval, then went on and finished.
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, root.ts).some((message) => message.taskDisplayMode === 'plan' && message.stream === 'stopped'),
    );
    const plan = harness.botReplies(channel, root.ts).find((message) => message.taskDisplayMode === 'plan')!;
    const steps = ((plan.chunks ?? []) as { type: string; id?: string; title?: string; status?: string }[]).filter((chunk) => chunk.type === 'task_update');
    const geordiStep = steps.find((step) => step.title?.includes('Geordi'))!.id;
    expect(steps.filter((step) => step.id === geordiStep).map((step) => step.status)).toEqual(['in_progress', 'pending', 'in_progress', 'complete']);
    expect(geordi.text).toContain('completed — build folder made');
    expect(harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!.text).toMatch(/Approved by <@U1>/);
    expect((await stat(path.join(harness.workspace, 'build'))).isDirectory()).toBe(true);
    expect(thread.at(-1)!.text).toContain('Pike ended the run: done');
  });
});
