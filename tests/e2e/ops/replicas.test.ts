/**
 * Two real `tsuka start` processes on one real redis-server, one Slack workspace (the emulator
 * hands each envelope to one of the two Socket Mode connections, as Slack does) and one model
 * server: every mention answered exactly once wherever it lands, a re-delivery to the other
 * replica answered once, an approval asked on one replica and decided on the other, and a replica
 * killed mid-reply — the other says so in the thread and keeps answering.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@redis/client';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { buttonsOf } from '../slack/slack-harness.js';
import { cliEnvironment, TSUKA_BIN } from '../../support/cli-process.js';

const execFileAsync = promisify(execFile);
let slack: SlackEmulator;
let model: ScriptedModelServer;
let redis: RedisServer;
let home: string;
const replicas: { child: ChildProcess; stderr: () => string }[] = [];

function startReplica(name: string): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, [TSUKA_BIN, 'start'], {
    cwd: home,
    env: cliEnvironment(home, {
      TSUKA_DATA_DIR: path.join(home, `data-${name}`),
      // The workspace is shared by the replicas (a shared volume in production).
      TSUKA_WORKSPACE: path.join(home, 'workspace'),
      TSUKA_STORE_URL: redis.url,
      TSUKA_REPLICA_HEARTBEAT_MS: '300',
      TSUKA_REPLICA_LEASE_MS: '1500',
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      TSUKA_LLM_BASE_URL: model.baseURL,
      TSUKA_LLM_CONCURRENCY: '4',
      TSUKA_HTTP_PORT: '0',
      TSUKA_STREAM_EDIT_MS: '200',
      TSUKA_LOG_LEVEL: 'warn',
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const replica = { child, stderr: () => stderr };
  replicas.push(replica);
  return replica;
}

beforeAll(async () => {
  [slack, model, redis] = await Promise.all([startSlackEmulator(), startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }), startRedisServer()]);
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-replicas-'));
  await mkdir(path.join(home, 'workspace'));
  startReplica('a');
  startReplica('b');
  await slack.waitFor(() => slack.openConnections === 2, { timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  for (const { child } of replicas) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await slack?.close();
  await model?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const replies = (channel: string, threadTs: string) => slack.thread(channel, threadTs).filter((message) => message.bot_id && message.ts !== threadTs);
/** The connection (1 or 2) an event went to. */
const connectionOf = (eventTs: string) =>
  slack.envelopes.find((record) => JSON.stringify(record.envelope.payload).includes(`"ts":"${eventTs}"`))?.connection ?? 0;

/** The replica process running the turn in `channel`'s thread, from the turn it holds in Redis. */
async function replicaRunning(channel: string): Promise<{ child: ChildProcess }> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    for (const key of await client.keys('tsuka:turn:*')) {
      if (!key.includes(`/${channel}/`)) continue;
      const holder = JSON.parse((await client.get(key)) ?? '{}') as { replicaId?: string };
      const pid = Number(/-(\d+)-[0-9a-f]{6}$/.exec(holder.replicaId ?? '')?.[1]);
      const found = replicas.find((replica) => replica.child.pid === pid);
      if (found) return found;
    }
    throw new Error(`no replica holds a turn in ${channel}`);
  } finally {
    await client.close();
  }
}

describe('two replicas on Redis', () => {
  it('answers every mention exactly once, whichever replica gets it', async () => {
    const mentions: Awaited<ReturnType<SlackEmulator['mention']>>[] = [];
    for (let index = 0; index < 6; index++) {
      model.enqueue({ text: `Answer ${index}.` });
      mentions.push(await slack.mention({ userId: `U${index}`, channelId: 'C1', text: `<@${slack.botUserId}> geordi question ${index}` }));
    }
    await slack.waitFor(() => mentions.every((mention) => replies('C1', mention.ts).some((message) => /Answer \d\./.test(message.text))), {
      timeoutMs: 30_000,
    });
    // Both replicas took mentions, and each was answered once.
    expect(new Set(mentions.map((mention) => connectionOf(mention.ts)))).toEqual(new Set([1, 2]));
    for (const mention of mentions) expect(replies('C1', mention.ts).filter((message) => /Answer \d\./.test(message.text))).toHaveLength(1);
  }, 60_000);

  it('doctor lists both live replicas', async () => {
    // Asynchronously: the emulators live in this process and must keep answering the replicas.
    const doctor = await execFileAsync(process.execPath, [TSUKA_BIN, 'doctor'], {
      cwd: home,
      env: cliEnvironment(home, { TSUKA_STORE_URL: redis.url, TSUKA_LLM_BASE_URL: model.baseURL, TSUKA_DATA_DIR: path.join(home, 'data-doctor') }),
      encoding: 'utf8',
      timeout: 60_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const pids = replicas.map((replica) => replica.child.pid);
    const line = doctor.stdout.split('\n').find((text) => text.includes('replicas on this Redis')) ?? '';
    expect(line).toMatch(/replicas on this Redis: 2 \(/);
    for (const pid of pids) expect(line).toMatch(new RegExp(`-${pid}-[0-9a-f]{6}`));
  }, 60_000);

  it('answers a re-delivery to the other replica once', async () => {
    model.enqueue({ text: 'Only once.' });
    const requestsBefore = model.requests.length;
    const first = await slack.mention({ userId: 'U1', channelId: 'C2', text: `<@${slack.botUserId}> geordi hello` });
    const eventId = slack.envelopes.at(-1)!.envelope.payload as { event_id?: string };
    const firstConnection = connectionOf(first.ts);
    slack.deliverNextTo(firstConnection === 1 ? 2 : 1);
    await slack.deliverEvent(
      { type: 'app_mention', user: 'U1', channel: 'C2', text: `<@${slack.botUserId}> geordi hello`, ts: first.ts },
      { eventId: eventId.event_id, retryAttempt: 1, retryReason: 'timeout' },
    );
    await slack.waitFor(() => replies('C2', first.ts).some((message) => message.text.includes('Only once.')), { timeoutMs: 20_000 });
    // The second envelope went to the other replica: it was acked there and dropped as seen.
    expect(slack.envelopes.at(-1)!.connection).not.toBe(firstConnection);
    expect(slack.envelopes.at(-1)!.acks.length).toBe(1);
    expect(model.requests.length).toBe(requestsBefore + 1);
    expect(slack.messages('C2').some((message) => /no scripted reply|Queued/.test(message.text))).toBe(false);
  }, 40_000);

  it('decides an approval on the replica that did not ask, and the asking run goes on', async () => {
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'shared.txt', content: 'from a replica' } }] });
    model.enqueue({ text: 'Written.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C3', text: `<@${slack.botUserId}> geordi write shared.txt` });
    await slack.waitFor(() => replies('C3', mention.ts).some((message) => buttonsOf(message).length === 3), { timeoutMs: 20_000 });
    const prompt = replies('C3', mention.ts).find((message) => buttonsOf(message).length === 3)!;
    const asking = connectionOf(mention.ts);
    slack.deliverNextTo(asking === 1 ? 2 : 1);
    await slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C3',
      messageTs: prompt.ts,
      threadTs: mention.ts,
      actionId: 'tsuka_approve',
      value: buttonsOf(prompt)[0]!.value,
    });
    expect(slack.envelopes.at(-1)!.connection).not.toBe(asking);
    await slack.waitFor(() => replies('C3', mention.ts).some((message) => message.text.includes('Written.')), { timeoutMs: 20_000 });
    expect(await readFile(path.join(home, 'workspace', 'shared.txt'), 'utf8')).toBe('from a replica');
    expect(slack.messages('C3').find((message) => message.ts === prompt.ts)!.text).toMatch(/Approved by <@U1>/);
  }, 60_000);

  it('queues a follow-up that lands on the other replica and answers it once, after the running turn', async () => {
    model.enqueue({ text: 'First answer, streamed slowly.', chunkSize: 4, delayMsBetweenChunks: 150 });
    model.enqueue({ text: 'Answer to the follow-up.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C7', text: `<@${slack.botUserId}> geordi start something` });
    await slack.waitFor(() => replies('C7', mention.ts).some((message) => message.text.includes('First')), { timeoutMs: 20_000 });
    const owner = connectionOf(mention.ts);
    slack.deliverNextTo(owner === 1 ? 2 : 1);
    await slack.threadMessage({ userId: 'U1', channelId: 'C7', threadTs: mention.ts, text: 'and a follow-up' });
    expect(slack.envelopes.at(-1)!.connection).not.toBe(owner);
    await slack.waitFor(() => replies('C7', mention.ts).some((message) => message.text.includes('Answer to the follow-up.')), { timeoutMs: 20_000 });
    const texts = replies('C7', mention.ts).map((message) => message.text);
    expect(texts.filter((text) => text.includes('Queued'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('Answer to the follow-up.'))).toHaveLength(1);
    // In order: the running turn finished before the follow-up was answered.
    expect(texts.findIndex((text) => text.includes('streamed slowly'))).toBeLessThan(texts.findIndex((text) => text.includes('follow-up.')));
  }, 60_000);

  it('stops a turn from the other replica', async () => {
    model.enqueue({ text: 'A long answer that will be stopped before it ends, word by word by word.', chunkSize: 3, delayMsBetweenChunks: 300 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C8', text: `<@${slack.botUserId}> geordi long answer` });
    await slack.waitFor(() => replies('C8', mention.ts).some((message) => message.text.includes('A long')), { timeoutMs: 20_000 });
    const owner = connectionOf(mention.ts);
    slack.deliverNextTo(owner === 1 ? 2 : 1);
    await slack.threadMessage({ userId: 'U1', channelId: 'C8', threadTs: mention.ts, text: 'stop' });
    await slack.waitFor(() => replies('C8', mention.ts).some((message) => /Stopped by <@U1>/.test(message.text)), { timeoutMs: 20_000 });
    await slack.waitFor(() => replies('C8', mention.ts).some((message) => /stopped/i.test(message.text) && !/Stopped by/.test(message.text)), {
      timeoutMs: 20_000,
    });
    expect(replies('C8', mention.ts).some((message) => message.text.includes('word by word by word.'))).toBe(false);
  }, 60_000);

  it("Slack's own Stop (agent_session_stopped) delivered to the other replica stops the turn; its stream ends with the session active", async () => {
    model.enqueue({ text: 'A long answer that the native Stop ends before it ends, word by word by word.', chunkSize: 3, delayMsBetweenChunks: 300 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C18', text: `<@${slack.botUserId}> geordi long answer` });
    await slack.waitFor(() => replies('C18', mention.ts).some((message) => message.stream === 'open'), { timeoutMs: 20_000 });
    const owner = connectionOf(mention.ts);
    slack.deliverNextTo(owner === 1 ? 2 : 1);
    await slack.stopAgentSession({ channel: 'C18', threadTs: mention.ts, userId: 'U1' });
    await slack.waitFor(() => replies('C18', mention.ts).some((message) => message.stream === 'stopped'), { timeoutMs: 20_000 });
    const answer = replies('C18', mention.ts).find((message) => message.stream === 'stopped')!;
    expect(answer.text).toContain('Stopped by <@U1>');
    expect(answer.text).not.toContain('word by word by word.');
    // The stop event went to the replica that does not run the turn.
    const stopEnvelope = slack.envelopes.find((record) => JSON.stringify(record.envelope.payload).includes('agent_session_stopped'));
    expect(stopEnvelope?.connection).not.toBe(owner);
    expect(slack.agentSessions.get(`C18/${mention.ts}`)?.statuses.map((entry) => entry.status)).toEqual(['processing', 'active']);
  }, 60_000);

  it('spends one Slack budget across both replicas: twenty replies at once in two channels, no 429', async () => {
    const limitedBefore = slack.rateLimited.length;
    const channels = ['C6', 'C10'];
    const mentions: { channel: string; ts: string }[] = [];
    for (let index = 0; index < 20; index++) model.enqueue({ text: `Busy answer ${index}.` });
    for (let index = 0; index < 20; index++) {
      const channel = channels[index % 2]!;
      const mention = await slack.mention({ userId: `U${index}`, channelId: channel, text: `<@${slack.botUserId}> geordi busy ${index}` });
      mentions.push({ channel, ts: mention.ts });
    }
    await slack.waitFor(() => mentions.every(({ channel, ts }) => replies(channel, ts).some((message) => /Busy answer \d+\./.test(message.text))), {
      timeoutMs: 60_000,
    });
    expect(new Set(mentions.map(({ ts }) => connectionOf(ts)))).toEqual(new Set([1, 2]));
    // Each replica alone would post 4 at once in a channel (its burst): together they would draw 429s.
    expect(slack.rateLimited.slice(limitedBefore).map((call) => JSON.stringify(call))).toEqual([]);
  }, 90_000);

  it('hands its threads over on a graceful stop: the turn says so, what was queued is answered by the other', async () => {
    model.enqueue({ text: 'A turn that a rolling deploy interrupts, slowly, word by word.', chunkSize: 3, delayMsBetweenChunks: 300 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C9', text: `<@${slack.botUserId}> geordi deploy-time question` });
    await slack.waitFor(() => replies('C9', mention.ts).some((message) => message.text.includes('A turn')), { timeoutMs: 20_000 });
    await slack.threadMessage({ userId: 'U1', channelId: 'C9', threadTs: mention.ts, text: 'and then this' });
    await slack.waitFor(() => replies('C9', mention.ts).some((message) => message.text.includes('Queued')), { timeoutMs: 20_000 });
    model.enqueue({ text: 'Answered by the replica that stayed.' });
    const stopping = await replicaRunning('C9');
    stopping.child.kill('SIGTERM');
    await slack.waitFor(() => replies('C9', mention.ts).some((message) => message.text.includes('This TSUKA replica is stopping')), {
      timeoutMs: 20_000,
    });
    await slack.waitFor(() => replies('C9', mention.ts).some((message) => message.text.includes('Answered by the replica that stayed.')), {
      timeoutMs: 20_000,
    });
    // A replacement joins while the survivor is in the middle of a reply: starting never touches live runs.
    model.enqueue({ text: 'A reply that goes on while a new replica starts, word by word by word.', chunkSize: 3, delayMsBetweenChunks: 150 });
    const during = await slack.mention({ userId: 'U2', channelId: 'C11', text: `<@${slack.botUserId}> geordi keep going` });
    await slack.waitFor(() => replies('C11', during.ts).some((message) => message.text.includes('A reply')), { timeoutMs: 20_000 });
    startReplica('c');
    await slack.waitFor(() => slack.openConnections === 2, { timeoutMs: 60_000 });
    await slack.waitFor(() => replies('C11', during.ts).some((message) => message.text.includes('word by word by word.')), { timeoutMs: 20_000 });
    expect(replies('C11', during.ts).some((message) => /interrupted|stopped/.test(message.text))).toBe(false);
  }, 90_000);

  it('says in the thread when the replica running a reply is killed, and keeps answering', async () => {
    // About 20 chunks half a second apart: the kill lands while it streams.
    model.enqueue({ text: 'This reply streams slowly and is cut off by the kill of its replica.', chunkSize: 4, delayMsBetweenChunks: 500 });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C4', text: `<@${slack.botUserId}> geordi tell a long story` });
    await slack.waitFor(() => replies('C4', mention.ts).some((message) => message.text.includes('This')), { timeoutMs: 20_000 });
    const owner = await replicaRunning('C4');
    const killedAt = Date.now();
    owner.child.kill('SIGKILL');
    await slack.waitFor(() => replies('C4', mention.ts).some((message) => /replica running this stopped/.test(message.text)), { timeoutMs: 60_000 });
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    // Said once, by the survivor; and new mentions are still answered.
    expect(replies('C4', mention.ts).filter((message) => /replica running this stopped/.test(message.text))).toHaveLength(1);
    // The reply really was cut off (the killed replica was the one streaming it).
    expect(replies('C4', mention.ts).some((message) => message.text.includes('kill of its replica.'))).toBe(false);
    await slack.waitFor(() => slack.openConnections === 1, { timeoutMs: 10_000 });
    model.enqueue({ text: 'Still here.' });
    const after = await slack.mention({ userId: 'U2', channelId: 'C5', text: `<@${slack.botUserId}> geordi are you there?` });
    await slack.waitFor(() => replies('C5', after.ts).some((message) => message.text.includes('Still here.')), { timeoutMs: 20_000 });
    // The re-delivered mention of the second test was never answered a second time.
    expect(slack.messages('C2').some((message) => /no scripted reply|Queued/.test(message.text))).toBe(false);
  }, 90_000);
});
