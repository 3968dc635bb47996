/**
 * docker-compose.replicas.yml gives the Redis password as REDIS_PASSWORD. Written into
 * `redis://:${REDIS_PASSWORD}@redis:6379` as it is, a password with `@`, `/`, `#`, `%` or `:` names
 * another host or no URL at all. TSUKA_REDIS_PASSWORD takes it on its own and encodes it once:
 * the bot reaches a Redis whose password has every one of those characters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { connectRedis } from '../../../src/core/coordination/redis-connection.js';
import { loadApprovalKey } from '../../../src/core/store/approval-key.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

const AWKWARD_PASSWORD = 'p@ss/w#rd:50%?x=1&y';

let directory: string;
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer({ password: AWKWARD_PASSWORD });
});
afterAll(async () => {
  await redis.stop();
});
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-redis-password-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function load(environment: NodeJS.ProcessEnv) {
  return loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });
}

function problemsOf(environment: NodeJS.ProcessEnv): string[] {
  try {
    load(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('TSUKA_REDIS_PASSWORD', () => {
  it('reaches a Redis whose password holds @ / # % : ? & =, and signs approvals with that password', async () => {
    const config = load({ TSUKA_STORE_URL: redis.urlWithoutPassword, TSUKA_REDIS_PASSWORD: AWKWARD_PASSWORD });
    const url = new URL(config.storeUrl!);
    expect(url.host).toBe(`127.0.0.1:${redis.port}`);
    expect(decodeURIComponent(url.password)).toBe(AWKWARD_PASSWORD);
    const [client] = await connectRedis(config.storeUrl!);
    try {
      expect(await client!.ping()).toBe('PONG');
    } finally {
      client!.destroy();
    }
    // The same key as a URL the operator had encoded by hand.
    const fromSetting = await loadApprovalKey({ storeUrl: config.storeUrl, dataDirectory: directory });
    const byHand = await loadApprovalKey({ storeUrl: redis.url, dataDirectory: directory });
    expect(fromSetting.source).toBe('redis-password');
    expect(fromSetting.key.equals(byHand.key)).toBe(true);
  });

  it('counts as the password the start requires', () => {
    expect(problemsOf({ TSUKA_STORE_URL: 'redis://redis:6379', TSUKA_REDIS_PASSWORD: AWKWARD_PASSWORD })).toEqual([]);
  });

  it('refuses a second password in the URL, and a store that is not Redis, in one line each', () => {
    const both = problemsOf({ TSUKA_STORE_URL: 'redis://:other@redis:6379', TSUKA_REDIS_PASSWORD: AWKWARD_PASSWORD });
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(/^TSUKA_STORE_URL carries a password and TSUKA_REDIS_PASSWORD is set too/);
    const notRedis = problemsOf({ TSUKA_STORE_URL: 'sqlite://./data/x.sqlite', TSUKA_REDIS_PASSWORD: AWKWARD_PASSWORD });
    expect(notRedis).toHaveLength(1);
    expect(notRedis[0]).toMatch(/^TSUKA_REDIS_PASSWORD is set but TSUKA_STORE_URL is not a redis:\/\/ URL/);
  });
});
