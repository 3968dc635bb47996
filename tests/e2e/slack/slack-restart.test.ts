/**
 * The real process (`node bin/tsuka.js start`) killed with SIGKILL during a streamed reply and during
 * a pending approval, then started again; and a graceful SIGTERM. Against the Slack emulator.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { buttonsOf } from './slack-harness.js';
import { TEST_SANDBOX_ENVIRONMENT } from '../../support/test-sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let slack: SlackEmulator;
let model: ScriptedModelServer;
let home: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  slack = await startSlackEmulator();
  model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-restart-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await slack.close();
  await model.close();
  await rm(home, { recursive: true, force: true });
});

function startBot(): ChildProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/tsuka.js'), 'start'], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_DATA_DIR: path.join(home, 'data'),
      TSUKA_WORKSPACE: path.join(home, 'workspace'),
      TSUKA_HTTP_PORT: '0',
      TSUKA_STREAM_EDIT_MS: '200',
      TSUKA_LOG_LEVEL: 'warn',
      // Tests exercise the sources even when a build exists.
      TSUKA_RUN_FROM_SOURCE: '1',
      ...TEST_SANDBOX_ENVIRONMENT,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return child;
}

const replies = (threadTs: string) => slack.thread('C1', threadTs).filter((message) => message.bot_id && message.ts !== threadTs);

async function killHard(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await once(child, 'exit');
}

describe('restart recovery', () => {
  it('SIGKILL during an edited reply: after restart the thread says it was interrupted, nothing is posted twice, the dead reply keeps its text and loses its Stop button', async () => {
    // Placeholder + chat.update (streaming refused): that message carries the Stop button (a message
    // made by chat.startStream has none while it streams).
    slack.setStreamingRefusal('not_allowed');
    const first = startBot();
    await slack.waitForConnection({ timeoutMs: 40_000 });
    model.enqueue({ text: `Partial answer ${'lorem '.repeat(400)}`, chunkSize: 6, delayMsBetweenChunks: 50 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi explain everything` });
    await slack.waitFor(() => replies(mention.ts).some((message) => message.text.startsWith('Partial answer')), { timeoutMs: 10_000 });
    // The first reply tried the streaming methods and showed its Stop button beside it meanwhile: that companion is taken away.
    await slack.waitFor(() => replies(mention.ts).length === 1);
    await killHard(first);
    const partial = replies(mention.ts);
    expect(partial).toHaveLength(1);

    startBot();
    await slack.waitFor(() => replies(mention.ts).some((message) => /restarted — this run was interrupted/.test(message.text)), { timeoutMs: 40_000 });
    const after = replies(mention.ts);
    expect(after).toHaveLength(2);
    expect(after[0]!.ts).toBe(partial[0]!.ts);
    expect(model.requests).toHaveLength(1);
    // Issue 41: the dead reply's Stop button is taken away at restart, its text kept.
    await slack.waitFor(() => buttonsOf(replies(mention.ts)[0]!).length === 0, { timeoutMs: 20_000 });
    expect(replies(mention.ts)[0]!.text).toBe(partial[0]!.text);
    // The transcript holds everything up to the crash and how it ended.
    await slack.deliverSlashCommand({ command: '/tsuka', text: 'export', userId: 'U1', channelId: 'C1' });
    await slack.waitFor(() => slack.files.length === 1);
    expect(slack.files[0]!.content).toContain('explain everything');
    expect(slack.files[0]!.content).toMatch(/interrupted/);
    // Resume (issue 25): the interrupted message is answered again in its thread, once, whoever clicks twice.
    const notice = replies(mention.ts).find((message) => /restarted — this run was interrupted/.test(message.text))!;
    const resume = buttonsOf(notice).find((button) => button.action_id === 'tsuka_resume')!;
    expect(resume).toBeDefined();
    model.enqueue({ text: 'The whole answer.' });
    const clickResume = () =>
      slack.deliverBlockAction({ userId: 'U1', channelId: 'C1', messageTs: notice.ts, threadTs: mention.ts, actionId: 'tsuka_resume', value: resume.value });
    await clickResume();
    await slack.waitFor(() => replies(mention.ts).some((message) => message.text.includes('The whole answer.')), { timeoutMs: 20_000 });
    await clickResume();
    await slack.waitFor(() => slack.ephemerals.some((message) => message.user === 'U1' && /already resumed/.test(message.text)));
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]!.body)).toContain('explain everything');
  }, 90_000);

  it('SIGKILL during a streamed reply: after restart the Stop companion beside it has no button and says the reply was interrupted', async () => {
    // A workspace without agent sessions: the Stop is the companion's (with sessions it is Slack's own, slack-agent-sessions.test.ts).
    slack.setAgentSessions({ refusal: 'not_allowed' });
    const first = startBot();
    await slack.waitForConnection({ timeoutMs: 40_000 });
    model.enqueue({ text: `Streaming answer ${'lorem '.repeat(400)}`, chunkSize: 6, delayMsBetweenChunks: 50 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi explain streaming` });
    const withStop = () => replies(mention.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_stop'));
    await slack.waitFor(() => withStop() !== undefined, { timeoutMs: 10_000 });
    const companion = withStop()!;
    // The bot went on streaming after it posted the companion (so it had time to note where it went).
    const grown = (length: number) => replies(mention.ts).some((message) => message.ts !== companion.ts && message.text.length > length);
    const shownThen = Math.max(
      ...replies(mention.ts)
        .filter((message) => message.ts !== companion.ts)
        .map((message) => message.text.length),
      0,
    );
    await slack.waitFor(() => grown(shownThen + 200), { timeoutMs: 10_000 });
    await killHard(first);

    startBot();
    await slack.waitFor(() => replies(mention.ts).some((message) => /restarted — this run was interrupted/.test(message.text)), { timeoutMs: 40_000 });
    const after = replies(mention.ts).find((message) => message.ts === companion.ts)!;
    expect(buttonsOf(after)).toHaveLength(0);
    expect(after.text).toMatch(/interrupted/i);
    expect(replies(mention.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_stop'))).toBe(false);
  }, 90_000);

  it('SIGKILL during a pending approval: after restart the approval shows expired and its buttons are gone', async () => {
    const first = startBot();
    await slack.waitForConnection({ timeoutMs: 40_000 });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }] });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi write x` });
    await slack.waitFor(() => replies(mention.ts).some((message) => buttonsOf(message).length === 3), { timeoutMs: 10_000 });
    const prompt = replies(mention.ts).find((message) => buttonsOf(message).length === 3)!;
    // Someone else's click is refused: proof the bot is idle with the approval recorded before it dies.
    await slack.deliverBlockAction({
      userId: 'U2',
      channelId: 'C1',
      messageTs: prompt.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_approve',
      value: buttonsOf(prompt)[0]!.value,
    });
    await slack.waitFor(() => slack.ephemerals.some((message) => message.user === 'U2'));
    await killHard(first);

    startBot();
    await slack.waitFor(() => replies(mention.ts).some((message) => /interrupted/.test(message.text)), { timeoutMs: 40_000 });
    await slack.waitFor(() => /Expired/.test(slack.messages('C1').find((message) => message.ts === prompt.ts)!.text), { timeoutMs: 40_000 });
    expect(buttonsOf(slack.messages('C1').find((message) => message.ts === prompt.ts)!)).toHaveLength(0);
    // The transcript is complete up to the crash, and says how it ended.
    await slack.deliverSlashCommand({ command: '/tsuka', text: 'export', userId: 'U1', channelId: 'C1' });
    await slack.waitFor(() => slack.files.length === 1);
    expect(slack.files[0]!.content).toContain('write x');
    expect(slack.files[0]!.content).toContain('write_file');
    expect(slack.files[0]!.content).toMatch(/expired/);
    expect(slack.files[0]!.content).toMatch(/interrupted/);
    // A click on the dead prompt changes nothing.
    await slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C1',
      messageTs: prompt.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_approve',
      value: buttonsOf(prompt)[0]!.value,
    });
    await slack.waitFor(() => slack.ephemerals.some((message) => /already decided/.test(message.text)));
  }, 90_000);

  it('SIGTERM (after a payload-less envelope that the process survives): running threads are told, pending approvals expire, the process exits within 10 s', async () => {
    const bot = startBot();
    await slack.waitForConnection({ timeoutMs: 40_000 });
    // Issue 17: an envelope without a payload used to end `tsuka start`; it is acked and dropped.
    await slack.deliverRawEnvelope({ envelope_id: 'env-no-payload', type: 'events_api', accepts_response_payload: false });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'y.txt', content: 'y' } }] });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi write y` });
    await slack.waitFor(() => replies(mention.ts).some((message) => buttonsOf(message).length === 3), { timeoutMs: 10_000 });
    const prompt = replies(mention.ts).find((message) => buttonsOf(message).length === 3)!;
    const started = Date.now();
    bot.kill('SIGTERM');
    const [code] = (await once(bot, 'exit')) as [number | null];
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(code).toBe(0);
    expect(slack.messages('C1').find((message) => message.ts === prompt.ts)!.text).toMatch(/Expired — TSUKA is restarting/);
    expect(replies(mention.ts).some((message) => /Restarting — this run was interrupted/.test(message.text))).toBe(true);
  }, 90_000);
});
