/**
 * The audit log: append-only, ordered by time, readable with `since`, masked, pruned by its own
 * retention — in memory, in one SQLite file written by two processes, and on Redis.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { createStoreAuditLog, pruneAuditOlderThan } from '../../../src/core/audit/store-audit-log.js';
import type { AuditEntryInput } from '../../../src/core/audit/audit-log.js';
import { startRetention } from '../../../src/app/retention-schedule.js';
import { silentLogger } from '../../../src/core/logger.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

const DAY = 24 * 60 * 60 * 1000;
const where = { platform: 'slack', channelId: 'slack:T1/CPRIVATE', threadId: 'slack:T1/CPRIVATE/1.0001' };
const approval = (decision: 'approved' | 'denied', actor: string): AuditEntryInput => ({
  type: 'approval',
  decision,
  actor,
  where,
  runId: 'run-1',
  tool: 'execute_command',
  riskLevel: 'DANGEROUS',
  summary: 'git push --force',
  requester: 'slack:U1',
});

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function memoryStore(): Promise<Store> {
  const store = await openStore({ url: 'memory://', dataDirectory: '/nonexistent' });
  closers.push(() => store.close());
  return store;
}

describe('audit log', () => {
  it('keeps entries in the order they were appended, with who, what, when and where', async () => {
    let time = 1_700_000_000_000;
    const audit = createStoreAuditLog(await memoryStore(), { now: () => time });
    await audit.append(approval('denied', 'slack:U2'));
    time += 5;
    await audit.append({ type: 'export', actor: 'slack:U1', where, runId: 'run-1', format: 'md' });
    // Same millisecond, then a clock that steps back: the order is still the order of appends.
    await audit.append({ type: 'memory-forget', actor: 'slack:U1', where, factId: 'f1' });
    time -= 1_000;
    await audit.append({ type: 'admin-action', action: 'trace', actor: 'slack:UADMIN', where, runId: 'run-1', runWhere: where });
    const entries = await audit.list();
    expect(entries.map((entry) => entry.type)).toEqual(['approval', 'export', 'memory-forget', 'admin-action']);
    expect(entries[0]).toMatchObject({ decision: 'denied', actor: 'slack:U2', tool: 'execute_command', where, runId: 'run-1', at: 1_700_000_000_000 });
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(4);
    expect(entries.map((entry) => entry.at)).toEqual([...entries.map((entry) => entry.at)].sort((a, b) => a - b));
  });

  it('lists since a time, and masks secrets in what it stores', async () => {
    let time = 1_000_000;
    const audit = createStoreAuditLog(await memoryStore(), { now: () => time, maskSecrets: (text) => text.replaceAll('tok-123', '[masked]') });
    await audit.append(approval('approved', 'slack:U2'));
    time = 2_000_000;
    await audit.append({ ...approval('approved', 'slack:U2'), summary: 'curl -H "Bearer tok-123"' } as AuditEntryInput);
    expect((await audit.list({ since: 1_500_000 })).map((entry) => entry.at)).toEqual([2_000_000]);
    expect(JSON.stringify(await audit.list())).not.toContain('tok-123');
  });

  it('never loses an entry when two processes append to one SQLite file in the same millisecond', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-audit-'));
    closers.push(() => rm(home, { recursive: true, force: true }));
    const first = await openStore({ dataDirectory: home });
    const second = await openStore({ dataDirectory: home });
    closers.push(
      () => first.close(),
      () => second.close(),
    );
    const now = () => 1_700_000_000_000;
    const a = createStoreAuditLog(first, { now });
    const b = createStoreAuditLog(second, { now });
    await Promise.all([a.append(approval('approved', 'slack:A')), b.append(approval('denied', 'slack:B')), a.append(approval('denied', 'slack:A'))]);
    const entries = await createStoreAuditLog(first).list();
    expect(entries).toHaveLength(3);
    expect(entries.map((entry) => entry.actor).sort()).toEqual(['slack:A', 'slack:A', 'slack:B']);
  });

  it('prunes entries older than the cutoff and keeps the rest; the schedule keeps the audit longer than runs', async () => {
    const store = await memoryStore();
    const now = Date.now();
    let time = now - 400 * DAY;
    const audit = createStoreAuditLog(store, { now: () => time });
    await audit.append(approval('approved', 'slack:old'));
    time = now - 100 * DAY;
    await audit.append(approval('approved', 'slack:kept'));
    time = now;
    await audit.append(approval('approved', 'slack:new'));
    // Runs after 30 days, the audit after 365: only the 400-day-old entry goes.
    const stop = await startRetention({ store, retentionDays: 30, auditRetentionDays: 365, logger: silentLogger, now: () => now });
    stop();
    expect((await audit.list()).map((entry) => entry.actor)).toEqual(['slack:kept', 'slack:new']);
    expect(await pruneAuditOlderThan(store, now - 50 * DAY)).toBe(1);
    expect((await audit.list()).map((entry) => entry.actor)).toEqual(['slack:new']);
    // Runs kept for ever (0) do not stop the audit's own retention.
    await createStoreAuditLog(store, { now: () => now - 400 * DAY }).append(approval('approved', 'slack:old-again'));
    (await startRetention({ store, retentionDays: 0, auditRetentionDays: 365, logger: silentLogger, now: () => now }))();
    expect((await audit.list()).map((entry) => entry.actor)).toEqual(['slack:new']);
  });
});

const redisMissing = spawnSync('redis-server', ['--version']).status !== 0;
describe.skipIf(redisMissing)(`audit log on Redis${redisMissing ? ' (skipped: redis-server is not installed)' : ''}`, () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('orders the entries of two replicas by time and lists them since a time', async () => {
    const one = await openStore({ url: redis.url, dataDirectory: '/nonexistent' });
    const two = await openStore({ url: redis.url, dataDirectory: '/nonexistent' });
    closers.push(
      () => one.close(),
      () => two.close(),
    );
    let time = 1_700_000_000_000;
    const a = createStoreAuditLog(one, { now: () => time });
    const b = createStoreAuditLog(two, { now: () => time });
    await a.append(approval('approved', 'slack:A1'));
    time += 10;
    await b.append(approval('denied', 'slack:B1'));
    time += 10;
    await a.append(approval('approved', 'slack:A2'));
    expect((await createStoreAuditLog(two).list()).map((entry) => entry.actor)).toEqual(['slack:A1', 'slack:B1', 'slack:A2']);
    expect((await createStoreAuditLog(one).list({ since: 1_700_000_000_010 })).map((entry) => entry.actor)).toEqual(['slack:B1', 'slack:A2']);
  });
});
