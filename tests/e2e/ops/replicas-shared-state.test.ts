/**
 * What one `tsuka start` process writes on `TSUKA_STORE_URL=redis://…` another reads: two real
 * replicas (each with its own data folder, so nothing is shared but the Redis) on one Slack
 * workspace. A fact saved and an approval decided on the first are seen by the second — in
 * `/tsuka memory` (after it had read that channel's memory while still empty) and in its own
 * model's prompt — and a third process, `tsuka audit` / `tsuka export`, reads the audit log and
 * the run's transcript from that Redis.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { buttonsOf } from '../slack/slack-harness.js';
import { cliEnvironment, TSUKA_BIN } from '../../support/cli-process.js';

const execFileAsync = promisify(execFile);
const VAULT = 'The vault code for the ops team is 5310-delta.';
let slack: SlackEmulator;
let model: ScriptedModelServer;
let redis: RedisServer;
let home: string;
const children: ChildProcess[] = [];

const environment = (name: string) =>
  cliEnvironment(home, {
    TSUKA_DATA_DIR: path.join(home, `data-${name}`),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    TSUKA_STORE_URL: redis.url,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    TSUKA_LLM_BASE_URL: model.baseURL,
    TSUKA_HTTP_PORT: '0',
    TSUKA_LOG_LEVEL: 'warn',
  });

beforeAll(async () => {
  [slack, model, redis] = await Promise.all([startSlackEmulator(), startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }), startRedisServer()]);
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-shared-state-'));
  await mkdir(path.join(home, 'workspace'));
  for (const name of ['a', 'b']) children.push(spawn(process.execPath, [TSUKA_BIN, 'start'], { cwd: home, env: environment(name), stdio: 'ignore' }));
  await slack.waitFor(() => slack.openConnections === 2, { timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await slack?.close();
  await model?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** `/tsuka <text>` in C11, delivered to replica connection `connection`; the answer only its typist sees. */
async function tsuka(text: string, connection: number): Promise<string> {
  const before = slack.responses.length;
  slack.deliverNextTo(connection);
  await slack.deliverSlashCommand({ command: '/tsuka', text, userId: 'U1', channelId: 'C11' });
  expect(slack.envelopes.at(-1)!.connection).toBe(connection);
  await slack.waitFor(() => slack.responses.length > before, { timeoutMs: 20_000 });
  return String((slack.responses.at(-1)!.body as { text?: string }).text);
}

/** A third app process on the same Redis (its own data folder): `tsuka <args>`'s stdout. */
async function cli(...args: string[]): Promise<string> {
  // Asynchronously: the emulators live in this process and must keep answering the replicas.
  const { stdout } = await execFileAsync(process.execPath, [TSUKA_BIN, ...args], { cwd: home, env: environment('cli'), encoding: 'utf8', timeout: 60_000 });
  return stdout;
}

const replies = (threadTs: string) => slack.thread('C11', threadTs).filter((message) => message.bot_id && message.ts !== threadTs);

describe('state one replica writes on Redis, read by another process', () => {
  it('memory saved and an approval decided on one replica: the other lists the fact and puts it in its prompt', async () => {
    // The second replica reads this channel's memory first, while it is empty: what it keeps of it must not go stale.
    expect(await tsuka('memory vault', 2)).toBe('No memory matches "vault".');

    model.enqueue({ toolCalls: [{ name: 'save_memory', arguments: { content: VAULT } }] });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'vault.txt', content: 'noted' } }] });
    model.enqueue({ text: 'Noted and written.' });
    slack.deliverNextTo(1);
    const mention = await slack.mention({ userId: 'U1', channelId: 'C11', text: `<@${slack.botUserId}> geordi remember this: ${VAULT} and write vault.txt` });
    expect(slack.envelopes.at(-1)!.connection).toBe(1);
    await slack.waitFor(() => replies(mention.ts).some((message) => buttonsOf(message).length === 3), { timeoutMs: 30_000 });
    const card = replies(mention.ts).find((message) => buttonsOf(message).length === 3)!;
    slack.deliverNextTo(1);
    await slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C11',
      messageTs: card.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_approve',
      value: buttonsOf(card)[0]!.value,
    });
    expect(slack.envelopes.at(-1)!.connection).toBe(1);
    await slack.waitFor(() => replies(mention.ts).some((message) => message.text.includes('Noted and written.')), { timeoutMs: 30_000 });

    const listing = await tsuka('memory vault', 2);
    expect(listing).toMatch(/^`[0-9a-f]{6}-[0-9a-f]{8}` .*vault code for the ops team/);

    const before = model.requests.length;
    model.enqueue({ text: 'It is in memory.' });
    slack.deliverNextTo(2);
    const question = await slack.mention({ userId: 'U1', channelId: 'C11', text: `<@${slack.botUserId}> geordi what is the vault code?` });
    expect(slack.envelopes.at(-1)!.connection).toBe(2);
    await slack.waitFor(() => replies(question.ts).some((message) => message.text.includes('It is in memory.')), { timeoutMs: 30_000 });
    expect(JSON.stringify(model.requests[before]!.body)).toContain('5310-delta');
  }, 120_000);

  it('`tsuka audit` in a third process reads the decision, and `tsuka export` the run it belongs to', async () => {
    const entries = (await cli('audit', '--json'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type: string; decision?: string; tool?: string; actor?: string; runId?: string });
    const approval = entries.find((entry) => entry.type === 'approval' && entry.tool === 'write_file');
    expect(approval).toMatchObject({ decision: 'approved', actor: 'slack:U1' });
    const runId = approval!.runId!;
    const transcript = await cli('export', runId);
    expect(transcript).toContain(runId);
    expect(transcript).toContain('remember this');
    expect(transcript).toContain('save_memory');
    expect(transcript).toContain('write_file');
    expect(transcript).toContain('Noted and written.');
  }, 120_000);
});
