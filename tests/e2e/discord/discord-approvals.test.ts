/** Approvals on Discord: buttons, who may decide, once only, timeout, approval for the run, and stop killing a running command. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../../emulators/discord/discord-emulator.js';
import { ADMIN, ANA, BEN, buttonsOf, sharedDiscordHarness, type DiscordHarness } from './discord-harness.js';
import { hostPidOfSleep } from '../../support/host-pid.js';

const hasApprove = (message: RecordedMessage) => buttonsOf(message).some((button) => button.custom_id.startsWith('tsuka_approve:'));

async function askForWrite(h: DiscordHarness) {
  h.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
  h.model.enqueue((body) => {
    const messages = (body as { messages: { role: string; content: string }[] }).messages;
    return { text: `Tool said: ${messages.filter((m) => m.role === 'tool').at(-1)!.content}` };
  });
  const question = h.mention({ content: 'geordi write the plan' });
  const prompt = await h.discord.waitFor(() => h.botReplies(question.id).find(hasApprove));
  return { question, prompt };
}

function click(h: DiscordHarness, prompt: RecordedMessage, action: string, userId: string) {
  const button = buttonsOf(prompt).find((candidate) => candidate.custom_id.startsWith(`${action}:`))!;
  return h.discord.clickButton({ messageId: prompt.id, customId: button.custom_id, userId, channelId: prompt.channelId });
}

/** The state letter of a process from `/proc/<pid>/stat` (after the parenthesised name), or `gone`. */
async function processState(pid: number): Promise<string> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
}

const current = (h: DiscordHarness, message: RecordedMessage) => h.discord.messages(message.channelId).find((candidate) => candidate.id === message.id)!;
const ephemeralTo = (h: DiscordHarness, pattern: RegExp) => h.followUps().some((followUp) => followUp.ephemeral && pattern.test(followUp.content));

describe('Discord approvals', () => {
  const bot = sharedDiscordHarness();
  it('shows Approve / Approve for this run / Deny with the right styles, defers the click and runs the tool once approved', async () => {
    const harness = bot();
    const { prompt, question } = await askForWrite(harness);
    expect(prompt.content).toMatch(/write_file/);
    expect(prompt.content).toMatch(/notes\/plan\.md/);
    // The prompt is the bot's own message (no character identity), its buttons on it.
    expect(prompt.authorId).toBe(harness.discord.botUserId);
    const buttons = buttonsOf(prompt);
    expect(buttons.map((button) => [button.label, button.style])).toEqual([
      ['Approve', 3],
      ['Approve “write_file” for this run', 1],
      ['Deny', 4],
    ]);
    for (const button of buttons) {
      expect(button.custom_id.length).toBeLessThanOrEqual(100);
      // actionId:value, the value an opaque approval id: no path, no content.
      expect(button.custom_id).toMatch(/^tsuka_[a-z_]+:[0-9a-f]{12}$/);
    }
    const invoked = await click(harness, prompt, 'tsuka_approve', ANA);
    const response = await invoked.responded;
    expect(response.type).toBe(6);
    expect(response.ms).toBeLessThan(3000);
    await harness.waitForReply(question.id, 'Tool said:');
    expect(await readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
    const settled = current(harness, prompt);
    expect(settled.content).toMatch(new RegExp(`Approved by <@${ANA}>`));
    expect(buttonsOf(settled)).toHaveLength(0);
  });

  it('denies: the tool does not run, the agent hears the denial and goes on', async () => {
    const harness = bot();
    const { prompt, question } = await askForWrite(harness);
    await click(harness, prompt, 'tsuka_deny', ANA);
    await harness.waitForReply(question.id, 'Tool said: Denied');
    await expect(readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).rejects.toThrow();
    expect(current(harness, prompt).content).toMatch(new RegExp(`Denied by <@${ANA}>`));
  });

  it('refuses someone else (ephemeral, nothing changes), accepts an admin, and takes no click once decided', async () => {
    const harness = bot();
    const { prompt, question } = await askForWrite(harness);
    const denyId = buttonsOf(prompt).find((button) => button.custom_id.startsWith('tsuka_deny:'))!.custom_id;
    await click(harness, prompt, 'tsuka_approve', BEN);
    await harness.discord.waitFor(() => ephemeralTo(harness, /Only the requester/));
    expect(buttonsOf(current(harness, prompt))).toHaveLength(3);
    // The click answered the interaction only: nothing public was posted in the thread.
    expect(harness.discord.messages(question.id).filter((message) => /Only the requester/.test(message.content) && (message.flags & 64) === 0)).toHaveLength(0);
    await click(harness, prompt, 'tsuka_approve', ADMIN);
    await harness.waitForReply(question.id, 'Tool said:');
    expect(current(harness, prompt).content).toMatch(new RegExp(`Approved by <@${ADMIN}>`));
    // The buttons are gone, so Discord (and the emulator) deliver no further click on this prompt.
    await expect(harness.discord.clickButton({ messageId: prompt.id, customId: denyId, userId: ANA, channelId: prompt.channelId })).rejects.toThrow(
      /no enabled button/,
    );
    expect(await readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
  });

  it('reports a second click on the same prompt as already decided', async () => {
    const harness = bot();
    const { prompt, question } = await askForWrite(harness);
    // Two clicks dispatched before the bot has edited the message: the second finds it decided.
    const first = await click(harness, prompt, 'tsuka_approve', ANA);
    const second = await click(harness, prompt, 'tsuka_deny', ANA);
    await Promise.all([first.responded, second.responded]);
    await harness.discord.waitFor(() => ephemeralTo(harness, /already decided/));
    // Whichever click the bot handled first decides (the two arrive together); the other changes nothing.
    await harness.discord.waitFor(() => /Approved by|Denied by/.test(current(harness, prompt).content));
    const approved = /Approved by/.test(current(harness, prompt).content);
    expect(current(harness, prompt).content).not.toMatch(approved ? /Denied/ : /Approved/);
    await harness.waitForReply(question.id, 'Tool said:');
    expect(await readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8').catch(() => 'not written')).toBe(approved ? '# Plan\n' : 'not written');
  });

  it('"Approve for this run" lets a second write_file of the run through without a prompt, but a DANGEROUS command still asks with Approve / Deny only', async () => {
    const harness = bot();
    const { discord, model } = harness;
    const lastToolOutput = (body: unknown) =>
      (body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool').at(-1)!.content;
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/one.md', content: 'one\n' } }] });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/two.md', content: 'two\n' } }] });
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'rm x' } }] });
    model.enqueue((body) => ({ text: `Last tool said: ${lastToolOutput(body)}` }));
    const question = harness.mention({ content: 'geordi write both notes, then clean up' });
    // Every message that ever offered Approve (a settled prompt loses its buttons).
    const prompts = () =>
      harness
        .botReplies(question.id)
        .filter((message) => message.revisions.some((revision) => JSON.stringify(revision.components).includes('"tsuka_approve:')));
    const first = await discord.waitFor(() => prompts().find(hasApprove));
    expect(first.content).toMatch(/notes\/one\.md/);
    await click(harness, first, 'tsuka_approve_run', ANA);
    const dangerous = await discord.waitFor(() => prompts().find((message) => message.id !== first.id && hasApprove(message)));
    // The second write ran on the run's approval: written before the next prompt, with no prompt of its own.
    expect(await readFile(path.join(harness.workspace, 'notes/two.md'), 'utf8')).toBe('two\n');
    expect(await readFile(path.join(harness.workspace, 'notes/one.md'), 'utf8')).toBe('one\n');
    expect(prompts().map((message) => message.id)).toEqual([first.id, dangerous.id]);
    expect(current(harness, first).content).toMatch(new RegExp(`Approved \`write_file\` for this run by <@${ANA}>`));
    expect(dangerous.content).toMatch(/execute_command rm x/);
    expect(dangerous.content).toMatch(/DANGEROUS/);
    expect(buttonsOf(dangerous).map((button) => button.label)).toEqual(['Approve', 'Deny']);
    await click(harness, dangerous, 'tsuka_deny', ANA);
    await harness.waitForReply(question.id, 'Last tool said: Denied');
    expect(model.requests).toHaveLength(4);
  });

  it('stop in the thread kills a running command and says so', async () => {
    const harness = bot();
    const { discord, model } = harness;
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'sleep 60', timeout_ms: 120000 } }] });
    model.enqueue({ text: 'should not be reached' });
    const question = harness.mention({ content: 'geordi wait a minute' });
    const prompt = await discord.waitFor(() => harness.botReplies(question.id).find(hasApprove));
    expect(prompt.content).toMatch(/DANGEROUS/);
    expect(buttonsOf(prompt).map((button) => button.label)).toEqual(['Approve', 'Deny']);
    await click(harness, prompt, 'tsuka_approve', ANA);
    await discord.waitFor(() => harness.botReplies(question.id).some((message) => /execute_command sleep 60 …/.test(message.content)));
    discord.postUserMessage({ channelId: question.id, userId: ANA, content: 'stop' });
    await discord.waitFor(() => harness.botReplies(question.id).some((message) => /⏹ Stopped\./.test(message.content) && buttonsOf(message).length === 0), {
      timeoutMs: 10_000,
    });
    expect(harness.botReplies(question.id).some((message) => message.content.includes(`Stopped by <@${ANA}>`))).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it("stop kills the running command's process, not just the wait for it", async () => {
    const harness = bot();
    const { discord, model } = harness;
    // A unique sleep to find on the host: inside the sandbox `$$` is a pid of its own namespace.
    const sleeper = `60.${process.pid}`;
    const command = `sh -c 'echo started > pid.txt; exec sleep ${sleeper}'`;
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command, timeout_ms: 120000 } }] });
    model.enqueue({ text: 'should not be reached' });
    const question = harness.mention({ content: 'geordi run the long job' });
    const prompt = await discord.waitFor(() => harness.botReplies(question.id).find(hasApprove));
    expect(prompt.content).toMatch(/DANGEROUS/);
    expect(prompt.content).toMatch(/Someone other than <@\d+> must approve/);
    // Issue 21: the requester alone cannot run a DANGEROUS command in a shared channel; a second member can.
    await click(harness, prompt, 'tsuka_approve', ANA);
    await discord.waitFor(() => ephemeralTo(harness, /someone else in this channel/));
    // Refused: the approval is still pending (its buttons are there) and the command has not run.
    expect(buttonsOf(current(harness, prompt)).length).toBeGreaterThan(0);
    expect(await readFile(path.join(harness.workspace, 'pid.txt'), 'utf8').catch(() => 'not run')).toBe('not run');
    await click(harness, prompt, 'tsuka_approve', BEN);
    await discord.waitFor(() => harness.botReplies(question.id).some((message) => message.content.includes(`execute_command ${command} …`)));
    const pidFile = path.join(harness.workspace, 'pid.txt');
    await expect.poll(() => readFile(pidFile, 'utf8').catch(() => ''), { interval: 20, timeout: 5000 }).toBe('started\n');
    // The sleep may still be between fork and exec when the file appears.
    await expect.poll(() => hostPidOfSleep(sleeper) ?? 0, { interval: 20, timeout: 5000 }).toBeGreaterThan(0);
    const pid = hostPidOfSleep(sleeper)!;
    // Alive and running before the stop, so the check after it means something.
    expect(await processState(pid)).toMatch(/^[RS]$/);
    discord.postUserMessage({ channelId: question.id, userId: ANA, content: 'stop' });
    await discord.waitFor(() => harness.botReplies(question.id).some((message) => /⏹ Stopped\./.test(message.content) && buttonsOf(message).length === 0), {
      timeoutMs: 10_000,
    });
    // Killed: gone, or a zombie nobody reaps (this container's PID 1 does not reap orphans).
    await expect.poll(() => processState(pid), { interval: 20, timeout: 2000 }).toMatch(/^(gone|Z)$/);
    expect(model.requests).toHaveLength(1);
  });
});

describe('Discord approvals with a one-second timeout', () => {
  const bot = sharedDiscordHarness({ environment: { TSUKA_APPROVAL_TIMEOUT_S: '1' } });

  it('expires after the timeout: denied, and the message says so', async () => {
    const harness = bot();
    const { prompt, question } = await askForWrite(harness);
    // Nobody decided: the model is told it did not run (not that a user denied it).
    await harness.waitForReply(question.id, 'Tool said: Not run: nobody decided in time', 8000);
    const expired = current(harness, prompt);
    expect(expired.content).toMatch(/Expired/);
    expect(buttonsOf(expired)).toHaveLength(0);
    await expect(readFile(path.join(harness.workspace, 'notes/plan.md'), 'utf8')).rejects.toThrow();
  });
});
