/**
 * Issue 25: a schedule on two replicas sharing one Redis store and one Slack workspace (two apps
 * in this process, each its own replica): each slot fires on one replica only, and never while the
 * previous firing still runs — on either replica.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, type RunningApp } from '../../../src/app/start-app.js';
import { createScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import { startSlackEmulator, type SlackEmulator } from '../../emulators/slack/slack-emulator.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { testAppConfig } from '../../support/test-app-config.js';

const redisMissing = spawnSync('redis-server', ['--version']).status !== 0;

describe.skipIf(redisMissing)(`a schedule on two replicas${redisMissing ? ' (skipped: redis-server is not installed)' : ''}`, () => {
  let slack: SlackEmulator;
  let model: ScriptedModelServer;
  let redis: RedisServer;
  let home: string;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    [slack, model, redis] = await Promise.all([startSlackEmulator(), startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }), startRedisServer()]);
    home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-schedule-replicas-'));
    await mkdir(path.join(home, 'workspace'));
    for (const name of ['a', 'b']) {
      const config = testAppConfig(home, model.baseURL, {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_API_URL: slack.apiUrl,
        TSUKA_STORE_URL: redis.url,
        TSUKA_DATA_DIR: path.join(home, `data-${name}`),
        TSUKA_REPLICA_HEARTBEAT_MS: '300',
        TSUKA_REPLICA_LEASE_MS: '1500',
        TSUKA_SCHEDULE_MIN_INTERVAL_S: '1',
      });
      apps.push(await startApp({ config, io: { stdout: () => undefined, stderr: () => undefined, environment: {}, workingDirectory: home }, slackRetries: 0 }));
    }
    await slack.waitFor(() => slack.openConnections === 2, { timeoutMs: 20_000 });
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.stop();
    await slack?.close();
    await model?.close();
    await redis?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('fires each slot once, and skips slots while its run goes on, whichever replica ticks first', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    model.enqueue({ text: 'First audit.', holdUntil: held });
    model.enqueue({ text: 'Second audit.' });
    const before = slack.responses.length;
    await slack.deliverSlashCommand({ command: '/tsuka', text: 'schedule every 1s @geordi audit the dependencies', userId: 'U1', channelId: 'C1' });
    await slack.waitFor(() => slack.responses.length > before);
    const id = /(sch-[0-9a-f]{6})/.exec(String((slack.responses.at(-1)!.body as { text?: string }).text))?.[1];
    expect(id).toBeDefined();
    const schedules = createScheduleStore(apps[0]!.engine.store);
    const roots = () => slack.messages('C1').filter((message) => message.bot_id && message.text.startsWith('⏰ Scheduled'));

    // The first firing holds in the model; both replicas keep ticking past three more slots.
    await model.waitForRequests(1);
    const firstFiredAt = (await schedules.get(id!))!.lastFiredAt!;
    await vi.waitFor(async () => expect((await schedules.get(id!))!.nextAt).toBeGreaterThan(firstFiredAt + 3_000), { timeout: 15_000, interval: 200 });
    expect(roots()).toHaveLength(1);
    expect(model.requests).toHaveLength(1);

    release();
    await slack.waitFor(() => roots().length >= 2 && slack.messages('C1').some((message) => message.text.includes('Second audit.')), { timeoutMs: 15_000 });
    const answer = await new Promise<string>((resolve) => {
      const at = slack.responses.length;
      void slack.deliverSlashCommand({ command: '/tsuka', text: `unschedule ${id}`, userId: 'U1', channelId: 'C1' });
      void slack.waitFor(() => slack.responses.length > at).then(() => resolve(String((slack.responses.at(-1)!.body as { text?: string }).text)));
    });
    expect(answer).toContain('Removed the schedule');
    // Every root came from a distinct firing: as many model calls as roots, and no slot posted twice.
    const texts = roots().map((root) => root.ts);
    expect(new Set(texts).size).toBe(texts.length);
    await vi.waitFor(() => expect(model.requests.length).toBe(roots().length), { timeout: 10_000, interval: 100 });
    expect(await schedules.list()).toEqual([]);
  }, 60_000);
});
