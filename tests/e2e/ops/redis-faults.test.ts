/**
 * Redis going away under a running replica: a mention is told at once that Redis does not answer
 * (nothing hangs), and once Redis is back on its address the replica reconnects and answers again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { cliEnvironment, TSUKA_BIN } from '../../support/cli-process.js';
import { liveReplicas } from '../../../src/core/coordination/redis-coordination.js';

let slack: SlackEmulator;
let model: ScriptedModelServer;
let redis: RedisServer;
let home: string;
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await slack?.close();
  await model?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('a replica when Redis goes away and comes back', () => {
  it('says Redis does not answer instead of hanging, and answers again once Redis is back', async () => {
    [slack, model, redis] = await Promise.all([startSlackEmulator(), startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }), startRedisServer()]);
    home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-redis-faults-'));
    await mkdir(path.join(home, 'workspace'));
    child = spawn(process.execPath, [TSUKA_BIN, 'start'], {
      cwd: home,
      env: cliEnvironment(home, {
        TSUKA_STORE_URL: redis.url,
        TSUKA_REPLICA_HEARTBEAT_MS: '300',
        TSUKA_REPLICA_LEASE_MS: '1500',
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_API_URL: slack.apiUrl,
        TSUKA_LLM_BASE_URL: model.baseURL,
        TSUKA_HTTP_PORT: '0',
        TSUKA_LOG_LEVEL: 'error',
      }),
      stdio: 'ignore',
    });
    await slack.waitFor(() => slack.openConnections === 1, { timeoutMs: 60_000 });

    await redis.stop();
    const lost = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi are you there?` });
    await slack.waitFor(
      () => slack.ephemerals.some((message) => /The shared state \(Redis\) does not answer right now; try again in a moment\./.test(message.text)),
      {
        timeoutMs: 15_000,
      },
    );
    expect(model.requests).toHaveLength(0);
    expect(slack.thread('C1', lost.ts).filter((message) => message.bot_id)).toHaveLength(0);

    redis = await startRedisServer({ port: redis.port });
    model.enqueue({ text: 'Back with Redis.' });
    // The replica reconnects on its own: its next heartbeat writes its lease into the new Redis.
    await expect.poll(() => liveReplicas(redis.url).catch(() => []), { timeout: 15_000, interval: 100 }).toHaveLength(1);
    const back = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi and now?` });
    await slack.waitFor(() => slack.thread('C1', back.ts).some((message) => message.text.includes('Back with Redis.')), { timeoutMs: 20_000 });
  }, 90_000);
});
