/**
 * One `tsuka start` per data folder: a second real process on the same folder exits 1 with one line
 * naming the holder, before it touches the store — the first one's pending approval still works.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { buttonsOf } from '../slack/slack-harness.js';
import { cliEnvironment, TSUKA_BIN } from '../../support/cli-process.js';

let slack: SlackEmulator;
let model: ScriptedModelServer;
let home: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  slack = await startSlackEmulator();
  model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-single-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await slack.close();
  await model.close();
  await rm(home, { recursive: true, force: true });
});

function startBot(): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [TSUKA_BIN, 'start'], {
    cwd: home,
    env: cliEnvironment(home, {
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_HTTP_PORT: '0',
      TSUKA_STREAM_EDIT_MS: '200',
      TSUKA_LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  children.push(child);
  return { child, stderr: () => stderr };
}

const replies = (threadTs: string) => slack.thread('C1', threadTs).filter((message) => message.bot_id && message.ts !== threadTs);

describe('one instance per data folder', () => {
  it('a second start exits 1 with one line; the first one’s pending approval still works', async () => {
    const first = startBot();
    await slack.waitForConnection({ timeoutMs: 40_000 });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'kept' } }] });
    model.enqueue({ text: 'Written.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi write x` });
    await slack.waitFor(() => replies(mention.ts).some((message) => buttonsOf(message).length === 3), { timeoutMs: 10_000 });
    const prompt = replies(mention.ts).find((message) => buttonsOf(message).length === 3)!;

    const second = startBot();
    const [code] = (await once(second.child, 'exit')) as [number | null];
    expect(code).toBe(1);
    const lines = second.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`already running on this data folder .*pid ${first.child.pid}, since \\d{4}-\\d\\d-\\d\\dT`));
    expect(lines[0]).toMatch(/TSUKA_DATA_DIR/);

    // Nothing was expired: the first instance's Approve still decides and the run finishes.
    await slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C1',
      messageTs: prompt.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_approve',
      value: buttonsOf(prompt)[0]!.value,
    });
    await slack.waitFor(() => replies(mention.ts).some((message) => message.text.includes('Written.')), { timeoutMs: 10_000 });
    expect(slack.messages('C1').find((message) => message.ts === prompt.ts)!.text).toMatch(/Approved by <@U1>/);
    expect(await readFile(path.join(home, 'workspace', 'x.txt'), 'utf8')).toBe('kept');
    expect(slack.ephemerals.some((message) => /already decided/.test(message.text))).toBe(false);
  }, 90_000);
  // A lock left by a killed process is taken over: tests/e2e/slack/slack-restart.test.ts restarts after SIGKILL,
  // and tests/unit/app/data-folder-lock.test.ts covers dead and reused pids.
});
