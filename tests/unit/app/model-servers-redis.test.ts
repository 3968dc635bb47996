/**
 * Two replicas on one Redis share the model servers' capacity (issue 13): with two servers at one
 * generation each, two calls of replica A take both; replica B's call waits, first in the queue
 * across replicas, and runs on the first server A frees.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectModelServer, findModelServer, type ModelConnection } from '../../../src/app/model-connection.js';
import { openRedisCoordination } from '../../../src/core/coordination/redis-coordination.js';
import type { Coordination } from '../../../src/core/coordination/coordination.js';
import type { LanguageModel } from '../../../src/core/model/language-model.js';
import { silentLogger } from '../../../src/core/logger.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { testAppConfig } from '../../support/test-app-config.js';

let redis: RedisServer;
let home: string;
let servers: ScriptedModelServer[];
const replicas: Coordination[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-servers-redis-'));
  servers = [await startScriptedModelServer({ modelId: 'pool-model:7b' }), await startScriptedModelServer({ modelId: 'pool-model:7b' })];
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
  await Promise.all(servers.map((server) => server.close()));
  await redis?.stop();
  await rm(home, { recursive: true, force: true });
});

async function replica(): Promise<ModelConnection> {
  const coordination = await openRedisCoordination({ url: redis.url });
  replicas.push(coordination);
  const config = testAppConfig(home, servers.map((server) => server.baseURL).join(','), { TSUKA_LLM_CONCURRENCY: '1' });
  const found = await findModelServer(config, { logger: silentLogger });
  return connectModelServer(config, found!, { logger: silentLogger, slots: coordination.slots });
}

async function text(model: LanguageModel, signal = new AbortController().signal): Promise<string> {
  let out = '';
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], signal })) if (part.type === 'text-delta') out += part.text;
  return out;
}

describe('several model servers over Redis', () => {
  it('shares the slots between two replicas, with one queue across both', async () => {
    const [a, b] = servers as [ScriptedModelServer, ScriptedModelServer];
    const [one, two] = [await replica(), await replica()];
    let openA: () => void = () => undefined;
    a.enqueue({ text: 'A for replica one', holdUntil: new Promise<void>((resolve) => (openA = resolve)) });
    a.enqueue({ text: 'A for replica two' });
    let openB: () => void = () => undefined;
    b.enqueue({ text: 'B for replica one', holdUntil: new Promise<void>((resolve) => (openB = resolve)) });

    const first = text(one.model);
    const second = text(one.model);
    await Promise.all([a.waitForRequests(1), b.waitForRequests(1)]);
    expect([await two.inUse(a.baseURL), await two.inUse(b.baseURL)]).toEqual([1, 1]);

    const signal = new AbortController().signal;
    const third = text(two.model, signal);
    await expect.poll(() => two.model.position(signal)).toBe(1);
    expect(a.requests.length + b.requests.length).toBe(2);

    openA();
    expect(await first).toBe('A for replica one');
    expect(await third).toBe('A for replica two');
    openB();
    expect(await second).toBe('B for replica one');
    expect(await one.inUse(a.baseURL)).toBe(0);
  });
});
