/**
 * Replicas benchmark (not a test), issue 13.
 * 1. The state work of one conversation turn (event claim, thread turn, run record, 12 run events,
 *    session read and write, hand-over) on SQLite with in-process coordination, and on Redis with
 *    Redis coordination. Goal: Redis adds ≤ 20 ms per turn (a turn's model time is seconds).
 * 2. Throughput: 20 mentions in 20 channels on the Slack emulator (quotas on), two scripted model
 *    servers streaming 120 tokens at ~100 tokens/s, 2 generations at a time each — answered by one
 *    `tsuka start` and by two, both on Redis. Goals: two replicas are not slower than one
 *    (≤ 1.1×), and draw no more 429s than one.
 * Run: `npx tsx bench/replicas-bench.ts` (needs `redis-server` on PATH).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { openCoordination } from '../src/core/coordination/open-coordination.js';
import { silentLogger } from '../src/core/logger.js';
import { createDedupeStore } from '../src/core/store/dedupe-store.js';
import { openStore } from '../src/core/store/open-store.js';
import { createRunStore } from '../src/core/store/run-store.js';
import { createSessionStore } from '../src/core/store/session-store.js';
import { startSlackEmulator, type SlackEmulator } from '../tests/emulators/slack/slack-emulator.js';
import { cliEnvironment, TSUKA_BIN } from '../tests/support/cli-process.js';
import { startRedisServer } from '../tests/support/redis-server.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../tests/support/scripted-model-server.js';
import { benchSize } from './bench-size.js';

const TURNS = benchSize(200, 5);
const EVENTS_PER_TURN = 12;
const MENTIONS = benchSize(20, 2);
const REDIS_EXTRA_GOAL_MS = 20;

const percentile = (values: number[], fraction: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
};
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

async function turnCost(storeUrl: string | undefined, dataDirectory: string): Promise<number[]> {
  const coordination = await openCoordination(storeUrl, silentLogger);
  const store = await openStore({ url: storeUrl, dataDirectory, mutex: coordination.mutex });
  const runs = createRunStore(store, { owner: coordination.replicaId, ...(coordination.shared ? { sequence: coordination } : {}) });
  const sessions = createSessionStore(store);
  const dedupe = createDedupeStore(store, coordination.shared ? { claim: (key, ttl) => coordination.claim(`event:${key}`, ttl) } : {});
  const costs: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const thread = `slack:T0/C${turn % 20}/${1_700_000_000 + turn}.000100`;
    const started = performance.now();
    await dedupe.markSeen(`Ev${turn}-${Math.random()}`);
    await coordination.turns.enter(thread, { text: 'hello' }, { replicaId: coordination.replicaId, requester: 'slack:U1' });
    await sessions.get(thread);
    const run = await runs.create({ kind: 'ask', title: 'bench', startedBy: 'slack:U1', where: { platform: 'slack', channelId: 'C1', threadId: thread } });
    for (let event = 0; event < EVENTS_PER_TURN; event++)
      await runs.appendEvent(run.id, { type: 'message', agent: 'geordi', text: `part ${event} `.repeat(20) });
    await runs.update(run.id, (record) => ({ ...record, status: 'completed', endedAt: Date.now() }));
    await sessions.save({ threadId: thread, character: 'geordi', history: [{ role: 'user', content: 'hello' }], updatedAt: Date.now() });
    await coordination.turns.next(thread, { replicaId: coordination.replicaId, requester: '' });
    costs.push(performance.now() - started);
  }
  await store.close();
  await coordination.close();
  return costs;
}

async function throughput(
  replicaCount: number,
  redisUrl: string,
  models: ScriptedModelServer[],
): Promise<{ seconds: number; limited: number; firstTextP95: number }> {
  const slack: SlackEmulator = await startSlackEmulator();
  const home = await mkdtemp(path.join(tmpdir(), 'tsuka-replicas-bench-'));
  await mkdir(path.join(home, 'workspace'));
  const children: ChildProcess[] = [];
  for (let index = 0; index < replicaCount; index++) {
    children.push(
      spawn(process.execPath, [TSUKA_BIN, 'start'], {
        cwd: home,
        env: cliEnvironment(home, {
          TSUKA_DATA_DIR: path.join(home, `data-${index}`),
          TSUKA_WORKSPACE: path.join(home, 'workspace'),
          TSUKA_STORE_URL: redisUrl,
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_APP_TOKEN: slack.appToken,
          SLACK_API_URL: slack.apiUrl,
          TSUKA_LLM_BASE_URL: models.map((model) => model.baseURL).join(','),
          TSUKA_LLM_CONCURRENCY: '2',
          TSUKA_HTTP_PORT: '0',
          TSUKA_LOG_LEVEL: 'error',
        }),
        stdio: 'ignore',
      }),
    );
  }
  try {
    await slack.waitFor(() => slack.openConnections === replicaCount, { timeoutMs: 60_000 });
    for (const model of models)
      for (let index = 0; index < MENTIONS; index++) model.enqueue({ text: 'word '.repeat(120), chunkSize: 5, delayMsBetweenChunks: 10 });
    const started = Date.now();
    const mentions = await Promise.all(
      Array.from({ length: MENTIONS }, (_, index) =>
        slack.mention({ userId: `U${index}`, channelId: `C${index}`, text: `<@${slack.botUserId}> geordi write ${index}` }),
      ),
    );
    const firstText: number[] = [];
    const done = (channel: string, ts: string) =>
      slack.thread(channel, ts).some((message) => message.bot_id && message.ts !== ts && message.text.trim().endsWith('word'));
    await slack.waitFor(
      () => {
        mentions.forEach((mention, index) => {
          if (firstText[index] === undefined && slack.thread(`C${index}`, mention.ts).some((message) => message.bot_id && /word/.test(message.text)))
            firstText[index] = Date.now() - started;
        });
        return mentions.every((mention, index) => done(`C${index}`, mention.ts));
      },
      { timeoutMs: 180_000 },
    );
    return { seconds: (Date.now() - started) / 1000, limited: slack.rateLimited.length, firstTextP95: percentile(firstText, 0.95) / 1000 };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
    await slack.close();
    await rm(home, { recursive: true, force: true });
  }
}

const redis = await startRedisServer();
const scratch = await mkdtemp(path.join(tmpdir(), 'tsuka-turn-bench-'));
const models = [await startScriptedModelServer({ modelId: 'bench-model:7b' }), await startScriptedModelServer({ modelId: 'bench-model:7b' })];
try {
  console.log(`replicas benchmark — ${availableParallelism()} cores, load ${loadavg()[0]!.toFixed(1)}`);
  const sqlite = await turnCost(undefined, scratch);
  const onRedis = await turnCost(redis.url, scratch);
  const extra = mean(onRedis) - mean(sqlite);
  console.log(`state work per turn, SQLite + in-process: mean ${mean(sqlite).toFixed(2)} ms, p95 ${percentile(sqlite, 0.95).toFixed(2)} ms`);
  console.log(`state work per turn, Redis + Redis coordination: mean ${mean(onRedis).toFixed(2)} ms, p95 ${percentile(onRedis, 0.95).toFixed(2)} ms`);
  console.log(`Redis adds ${extra.toFixed(2)} ms per turn (goal ≤ ${REDIS_EXTRA_GOAL_MS} ms) ${extra <= REDIS_EXTRA_GOAL_MS ? 'MET' : 'MISSED'}`);
  const one = await throughput(1, redis.url, models);
  const two = await throughput(2, redis.url, models);
  console.log(`${MENTIONS} mentions in ${MENTIONS} channels, 2 model servers × 2 slots:`);
  console.log(`  1 replica:  all complete in ${one.seconds.toFixed(1)} s, first text p95 ${one.firstTextP95.toFixed(2)} s, 429s ${one.limited}`);
  console.log(`  2 replicas: all complete in ${two.seconds.toFixed(1)} s, first text p95 ${two.firstTextP95.toFixed(2)} s, 429s ${two.limited}`);
  const ratio = two.seconds / one.seconds;
  console.log(`  two replicas take ${ratio.toFixed(2)}× one's time (goal ≤ 1.10) ${ratio <= 1.1 ? 'MET' : 'MISSED'}`);
  console.log(`  429s with two ≤ with one: ${two.limited <= one.limited ? 'MET' : 'MISSED'}`);
} finally {
  await Promise.all(models.map((model) => model.close()));
  await redis.stop();
  await rm(scratch, { recursive: true, force: true });
}
