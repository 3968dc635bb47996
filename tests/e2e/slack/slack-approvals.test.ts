/** Approvals on Slack: buttons, who may decide, once only, timeout, and stop during a running command. */
import { readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { buttonsOf, useSlackHarness, type SlackHarness } from './slack-harness.js';
import { hostPidOfSleep } from '../../support/host-pid.js';

/** The files these tests have the tools write: each test starts without them, as on a fresh app. */
const WRITTEN = ['notes', 'one.txt', 'two.txt', 'three.txt', 'sleeper.pid'];
const clearWritten = (h: SlackHarness) => Promise.all(WRITTEN.map((name) => rm(path.join(h.workspace, name), { recursive: true, force: true })));

async function askForWrite(h: SlackHarness, channel: string) {
  h.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
  h.model.enqueue((body) => {
    const messages = (body as { messages: { role: string; content: string }[] }).messages;
    return { text: `Tool said: ${messages.filter((m) => m.role === 'tool').at(-1)!.content}` };
  });
  const mention = await h.slack.mention({ userId: 'U1', channelId: channel, text: `<@${h.slack.botUserId}> geordi write the plan` });
  await h.slack.waitFor(() => h.botReplies(channel, mention.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve')));
  const prompt = h.botReplies(channel, mention.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'))!;
  return { mention, prompt };
}

const click = (h: SlackHarness, prompt: { ts: string; thread_ts?: string; blocks?: unknown[] }, actionId: string, userId: string, channel: string) => {
  const button = buttonsOf(prompt).find((candidate) => candidate.action_id === actionId)!;
  return h.slack.deliverBlockAction({ userId, channelId: channel, messageTs: prompt.ts, threadTs: prompt.thread_ts, actionId, value: button.value });
};

describe('Slack approvals', () => {
  // One app for the tests of the default settings; each test has a channel of its own.
  const shared = useSlackHarness();
  beforeEach(() => clearWritten(shared()));

  it('shows what will happen with Approve / Approve for this run / Deny, and runs the tool once approved', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const { prompt, mention } = await askForWrite(harness, channel);
    expect(prompt.text).toMatch(/write_file/);
    expect(prompt.text).toMatch(/notes\/plan\.md/);
    expect(prompt.text).toMatch(/RESTRICTED/);
    expect(buttonsOf(prompt).map((button) => button.text.text)).toEqual(['Approve', 'Approve “write_file” for this run', 'Deny']);
    // The button value is an opaque id: no path, no content, nothing secret.
    expect(buttonsOf(prompt)[0]!.value).toMatch(/^[0-9a-f]{12}$/);
    const result = await click(harness, prompt, 'tsuka_approve', 'U1', channel);
    expect(result.ackMs).toBeLessThan(3000);
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Tool said:') && buttonsOf(message).length === 0),
    );
    expect(await readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
    const settled = harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!;
    expect(settled.text).toMatch(/Approved by <@U1>/);
    expect(buttonsOf(settled)).toHaveLength(0);
    // Issue 24, the order of events: what the call did, and the words after it, come below the card
    // that asked for it — the reply above the card ends there, its task card still asking.
    const thread = harness.botReplies(channel, mention.ts);
    const card = thread.findIndex((message) => message.ts === prompt.ts);
    const tasks = (message: { chunks?: Record<string, unknown>[] }) => (message.chunks ?? []).filter((chunk) => chunk.type === 'task_update');
    const above = thread.slice(0, card);
    const below = thread.slice(card + 1);
    expect(above.flatMap(tasks).map((task) => task.status)).not.toContain('complete');
    expect(above.map((message) => message.text).join('\n')).not.toContain('Tool said:');
    expect(below.flatMap(tasks)).toEqual([expect.objectContaining({ title: 'write_file notes/plan.md', status: 'complete' })]);
    expect(below.some((message) => message.text.includes('Tool said:'))).toBe(true);
  });

  it('a new file too long for the card: Show whole file posts all of it in the thread (issue 40), and the card shows no host path', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const long = Array.from({ length: 50 }, (_, index) => `step ${index + 1}`).join('\n');
    harness.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/long.md', content: long } }] });
    harness.model.enqueue({ text: 'Written.' });
    const mention = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> geordi write the long plan` });
    const isCard = (message: { blocks?: unknown[] }) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve');
    await harness.slack.waitFor(() => harness.botReplies(channel, mention.ts).some(isCard));
    const prompt = harness.botReplies(channel, mention.ts).find(isCard)!;
    expect(prompt.text).toMatch(/30 more lines/);
    expect(prompt.text).not.toContain(harness.workspace);
    expect(buttonsOf(prompt).map((button) => button.text.text)).toContain('Show whole file');
    // Anyone who sees the card may look: U2 is not the requester.
    await click(harness, prompt, 'tsuka_show_whole_file', 'U2', channel);
    await harness.slack.waitFor(() => harness.slack.files.some((file) => file.channel === channel));
    const file = harness.slack.files.find((candidate) => candidate.channel === channel)!;
    expect(file).toMatchObject({ name: 'long.md', thread_ts: mention.ts, content: long });
    await click(harness, prompt, 'tsuka_approve', 'U1', channel);
    await harness.slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Written.')));
  });

  it('denies: the tool does not run, the agent hears the denial and goes on', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const { prompt, mention } = await askForWrite(harness, channel);
    await click(harness, prompt, 'tsuka_deny', 'U1', channel);
    await harness.slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Tool said: Denied')));
    await expect(readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).rejects.toThrow();
    expect(harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!.text).toMatch(/Denied by <@U1>/);
  });

  it('refuses a click by someone else (ephemeral, nothing changes), accepts an admin, and reports a double click', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const { prompt, mention } = await askForWrite(harness, channel);
    await click(harness, prompt, 'tsuka_approve', 'U2', channel);
    await harness.slack.waitFor(() =>
      harness.slack.ephemerals.some((message) => message.channel === channel && message.user === 'U2' && /Only the requester/.test(message.text)),
    );
    expect(buttonsOf(harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!)).toHaveLength(3);
    await click(harness, prompt, 'tsuka_approve', 'UADMIN', channel);
    await harness.slack.waitFor(() => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Tool said:')));
    expect(harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!.text).toMatch(/Approved by <@UADMIN>/);
    await click(harness, prompt, 'tsuka_deny', 'U1', channel);
    await harness.slack.waitFor(() =>
      harness.slack.ephemerals.some((message) => message.channel === channel && message.user === 'U1' && /already decided/.test(message.text)),
    );
    expect(await readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
  });

  it('"Approve for this run" covers later calls of the same RESTRICTED tool in that run only', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const { slack, model } = harness;
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'one.txt', content: '1' } }] });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'two.txt', content: '2' } }] });
    model.enqueue({ toolCalls: [{ name: 'edit_file', arguments: { path: 'two.txt', targetContent: '2', replacementContent: '3' } }] });
    model.enqueue({ text: 'all written' });
    const mention = await slack.mention({ userId: 'U1', channelId: channel, text: `<@${slack.botUserId}> geordi write two files` });
    const prompts = () => harness.botReplies(channel, mention.ts).filter((message) => /wants to run/.test(message.text));
    await slack.waitFor(() => prompts().length === 1 && buttonsOf(prompts()[0]!).length === 3);
    await click(harness, prompts()[0]!, 'tsuka_approve_run', 'U1', channel);
    // The second write_file runs without asking; edit_file is another tool, so it asks.
    await slack.waitFor(() => prompts().length === 2);
    expect(prompts()[1]!.text).toMatch(/edit_file/);
    expect(await readFile(path.join(harness.workspace, 'two.txt'), 'utf8')).toBe('2');
    expect(slack.messages(channel).find((message) => message.ts === prompts()[0]!.ts)!.text).toMatch(/Approved `write_file` for this run by <@U1>/);
    await click(harness, prompts()[1]!, 'tsuka_deny', 'U1', channel);
    await slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => message.text.includes('all written') && buttonsOf(message).length === 0),
    );
    // A new run (a follow-up turn) asks again for write_file.
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'three.txt', content: '3' } }] });
    await slack.threadMessage({ userId: 'U1', channelId: channel, threadTs: mention.ts, text: 'one more' });
    await slack.waitFor(() => prompts().length === 3);
  });

  it('stop in the thread kills a running command (its whole process tree) and says so', async () => {
    const harness = shared();
    const channel = harness.newChannel();
    const requestsBefore = harness.model.requests.length;
    // A unique sleep to find on the host: inside the sandbox `$!` is a pid of its own namespace.
    const sleeper = `60.${process.pid}`;
    harness.model.enqueue({
      toolCalls: [{ name: 'execute_command', arguments: { command: `sh -c 'sleep ${sleeper} & echo started > sleeper.pid; wait'`, timeout_ms: 120000 } }],
    });
    harness.model.enqueue({ text: 'should not be reached' });
    const mention = await harness.slack.mention({ userId: 'U1', channelId: channel, text: `<@${harness.slack.botUserId}> geordi wait a minute` });
    await harness.slack.waitFor(() =>
      harness.botReplies(channel, mention.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve')),
    );
    const prompt = harness.botReplies(channel, mention.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'))!;
    expect(prompt.text).toMatch(/DANGEROUS/);
    expect(buttonsOf(prompt).map((button) => button.text.text)).toEqual(['Approve', 'Deny']);
    // Issue 21: in a channel with other people the requester's own click does not run a DANGEROUS command.
    expect(prompt.text).toMatch(/Someone other than <@U1> must approve/);
    await click(harness, prompt, 'tsuka_approve', 'U1', channel);
    await harness.slack.waitFor(() =>
      harness.slack.ephemerals.some((message) => message.channel === channel && message.user === 'U1' && /someone else in this channel/.test(message.text)),
    );
    await click(harness, prompt, 'tsuka_approve', 'U2', channel);
    const pidFile = path.join(harness.workspace, 'sleeper.pid');
    await expect
      .poll(
        () =>
          readFile(pidFile, 'utf8').then(
            (text) => text.trim(),
            () => '',
          ),
        { interval: 20, timeout: 5000 },
      )
      .toBe('started');
    // The sleep may still be between fork and exec when the file appears.
    await expect.poll(() => hostPidOfSleep(sleeper) ?? 0, { interval: 20, timeout: 5000 }).toBeGreaterThan(0);
    const pid = hostPidOfSleep(sleeper)!;
    expect(isRunning(pid)).toBe(true);
    await harness.slack.threadMessage({ userId: 'U1', channelId: channel, threadTs: mention.ts, text: 'stop' });
    await harness.slack.waitFor(
      () => harness.botReplies(channel, mention.ts).some((message) => /⏹ Stopped\./.test(message.text) && buttonsOf(message).length === 0),
      { timeoutMs: 10_000 },
    );
    expect(harness.botReplies(channel, mention.ts).some((message) => /Stopped by <@U1>/.test(message.text))).toBe(true);
    // The grandchild `sleep 60` is gone (or a zombie: this container's PID 1 does not reap orphans).
    await expect.poll(() => isRunning(pid), { interval: 50, timeout: 5000 }).toBe(false);
    expect(harness.model.requests.slice(requestsBefore)).toHaveLength(1);
  });

  describe('with a 1-second approval timeout', () => {
    const quick = useSlackHarness({ environment: { TSUKA_APPROVAL_TIMEOUT_S: '1' } });
    it('expires after the timeout: denied, and the message says so', async () => {
      const harness = quick();
      const channel = harness.newChannel();
      const { prompt, mention } = await askForWrite(harness, channel);
      // Nobody decided: the model is told it did not run (not that a user denied it).
      await harness.slack.waitFor(
        () => harness.botReplies(channel, mention.ts).some((message) => message.text.includes('Tool said: Not run: nobody decided in time')),
        {
          timeoutMs: 8000,
        },
      );
      const expired = harness.slack.messages(channel).find((message) => message.ts === prompt.ts)!;
      expect(expired.text).toMatch(/Expired/);
      expect(buttonsOf(expired)).toHaveLength(0);
      await click(harness, prompt, 'tsuka_approve', 'U1', channel);
      await harness.slack.waitFor(() =>
        harness.slack.ephemerals.some((message) => message.channel === channel && /already decided|no longer active/.test(message.text)),
      );
      await expect(readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).rejects.toThrow();
    });
  });
});

/** Alive and not a zombie, read from /proc (Linux). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
