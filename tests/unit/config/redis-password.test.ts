/**
 * Attack: the bot on a password-less Redis. A sandboxed command that reaches it (same host, same
 * network) can rewrite a stored approval and publish it. The start refuses such a URL, in one line
 * naming the setting and the fix, unless the risk is accepted explicitly.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-redis-config-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

function problemsOf(environment: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const KEY = 'k'.repeat(40);

describe('a Redis store without a password', () => {
  it.each(['redis://127.0.0.1:6379', 'redis://redis:6379/0', 'rediss://cache.internal:6380', 'redis://someuser@127.0.0.1:6379'])(
    '%s is refused at start',
    (url) => {
      const problems = problemsOf({ TSUKA_STORE_URL: url });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^TSUKA_STORE_URL points at a Redis without a password/);
      expect(problems[0]).toContain('--requirepass');
      expect(problems[0]).toContain('TSUKA_REDIS_ALLOW_NO_PASSWORD=1');
      expect(problems[0]).not.toContain('\n');
    },
  );

  it('is refused in tsuka.config.json too, and the opt-in there does not count (environment only)', async () => {
    await writeFile(path.join(directory, 'tsuka.config.json'), JSON.stringify({ storeUrl: 'redis://127.0.0.1:6379' }));
    expect(problemsOf({})[0]).toMatch(/Redis without a password/);
  });

  it('is accepted with TSUKA_REDIS_ALLOW_NO_PASSWORD=1 and an approval key (nothing else to sign approvals with)', () => {
    expect(problemsOf({ TSUKA_STORE_URL: 'redis://127.0.0.1:6379', TSUKA_REDIS_ALLOW_NO_PASSWORD: '1' })).toEqual([
      expect.stringMatching(/^TSUKA_REDIS_ALLOW_NO_PASSWORD=1 needs TSUKA_APPROVAL_KEY/),
    ]);
    expect(problemsOf({ TSUKA_STORE_URL: 'redis://127.0.0.1:6379', TSUKA_REDIS_ALLOW_NO_PASSWORD: '1', TSUKA_APPROVAL_KEY: KEY })).toEqual([]);
  });

  it('a URL with a password, or another store, needs nothing more', () => {
    expect(problemsOf({ TSUKA_STORE_URL: 'redis://:s3cret-pass@127.0.0.1:6379' })).toEqual([]);
    expect(problemsOf({ TSUKA_STORE_URL: 'redis://tsuka:s3cret-pass@127.0.0.1:6379' })).toEqual([]);
    expect(problemsOf({ TSUKA_STORE_URL: 'sqlite://./data/tsuka.sqlite' })).toEqual([]);
    expect(problemsOf({})).toEqual([]);
  });

  it('a short TSUKA_APPROVAL_KEY or a bad opt-in value is named', () => {
    expect(problemsOf({ TSUKA_APPROVAL_KEY: 'short' })).toEqual([expect.stringMatching(/^TSUKA_APPROVAL_KEY is too short \(5 characters\)/)]);
    expect(problemsOf({ TSUKA_REDIS_ALLOW_NO_PASSWORD: 'maybe' })).toEqual([expect.stringMatching(/^TSUKA_REDIS_ALLOW_NO_PASSWORD="maybe" is not valid/)]);
  });
});

describe('doctor on the store', () => {
  const configFor = (environment: NodeJS.ProcessEnv) => loadConfig({ environment, workingDirectory: directory, rootDirectory: directory });

  it('says where the approval key comes from, and warns about an accepted password-less Redis', async () => {
    const { storeSecurityLines } = await import('../../../src/cli/doctor-store-security.js');
    expect(storeSecurityLines(configFor({}))).toEqual([expect.stringMatching(/^approvals are signed with the key in .*approval\.key/)]);
    expect(storeSecurityLines(configFor({ TSUKA_STORE_URL: 'redis://:pw@127.0.0.1:6379' }))).toEqual([
      expect.stringMatching(/derived from the Redis password/),
    ]);
    expect(storeSecurityLines(configFor({ TSUKA_STORE_URL: 'redis://127.0.0.1:6379', TSUKA_REDIS_ALLOW_NO_PASSWORD: '1', TSUKA_APPROVAL_KEY: KEY }))).toEqual([
      expect.stringMatching(/^⚠ Redis without a password \(TSUKA_REDIS_ALLOW_NO_PASSWORD=1\)/),
      'approvals are signed with TSUKA_APPROVAL_KEY',
    ]);
  });
});

describe('the new settings and child processes', () => {
  it('TSUKA_APPROVAL_KEY never reaches a command (nor the opt-in: its name says PASSWORD)', async () => {
    const { createChildEnv } = await import('../../../src/core/safety/child-env.js');
    const env = createChildEnv({ PATH: '/usr/bin', TSUKA_APPROVAL_KEY: KEY, TSUKA_REDIS_ALLOW_NO_PASSWORD: '1' });
    expect(env).toEqual({ PATH: '/usr/bin' });
  });
});
