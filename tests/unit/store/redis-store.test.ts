/**
 * The store on a real redis-server, opened twice as two replicas would: namespaces, ordered
 * listings, expiry, and read-modify-write that loses nothing across the two.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRedisCoordination } from '../../../src/core/coordination/redis-coordination.js';
import type { Coordination } from '../../../src/core/coordination/coordination.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function replica(): Promise<{ store: Store; coordination: Coordination }> {
  const coordination = await openRedisCoordination({ url: redis.url });
  const store = await openStore({ url: redis.url, dataDirectory: '/nonexistent', mutex: coordination.mutex });
  closers.push(
    () => coordination.close(),
    () => store.close(),
  );
  return { store, coordination };
}

describe('store on Redis', () => {
  it('names Redis without its password and refuses a server that does not answer', async () => {
    await expect(openStore({ url: 'redis://user:secret@127.0.0.1:1', dataDirectory: '/x' })).rejects.toThrow(
      /redis:\/\/user:\*\*\*@127\.0\.0\.1:1 does not answer/,
    );
  });

  it('keeps namespaces apart and lists a prefix in key order, skipping expired entries', async () => {
    const { store } = await replica();
    const first = store.namespace<string>('alpha');
    const second = store.namespace<string>('alphabet');
    await first.set('b', 'B');
    await first.set('a', 'A');
    await first.set('a:2', 'A2');
    await first.set('short', 'gone soon', 30);
    await second.set('a', 'other namespace');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const listed: [string, string][] = [];
    for await (const entry of first.entries()) listed.push(entry);
    expect(listed).toEqual([
      ['a', 'A'],
      ['a:2', 'A2'],
      ['b', 'B'],
    ]);
    const prefixed: string[] = [];
    for await (const [key] of first.entries('a')) prefixed.push(key);
    expect(prefixed).toEqual(['a', 'a:2']);
    expect(await second.get('a')).toBe('other namespace');
    expect(await first.get('short')).toBeUndefined();
    expect(await first.delete('b')).toBe(true);
    expect(await first.has('b')).toBe(false);
  });

  it('loses no update when two replicas write one key at once', async () => {
    const one = await replica();
    const two = await replica();
    const counters = [one.store.namespace<number>('counters'), two.store.namespace<number>('counters')];
    await Promise.all(Array.from({ length: 40 }, (_, index) => counters[index % 2]!.update('hits', (current) => (current ?? 0) + 1)));
    expect(await counters[0]!.get('hits')).toBe(40);
  });

  it('settles an approval once when both replicas click at the same moment', async () => {
    const one = await replica();
    const two = await replica();
    const approvalsOne = createApprovalStore(one.store, { signer: testApprovalSigner });
    const approvalsTwo = createApprovalStore(two.store, { signer: testApprovalSigner });
    await approvalsOne.create({
      id: 'ap-1',
      runId: 'run-1',
      toolCallId: 'c',
      toolName: 'write_file',
      riskLevel: 'RESTRICTED',
      summary: 's',
      expiresAt: Date.now() + 60_000,
    });
    const results = await Promise.all([
      approvalsOne.settle('ap-1', { status: 'approved', decidedBy: 'u1' }),
      approvalsTwo.settle('ap-1', { status: 'denied', decidedBy: 'u2' }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });

  it("keeps a store task's own errors: an unknown approval or run is reported as such, not as Redis failing", async () => {
    const { store, coordination } = await replica();
    const approvals = createApprovalStore(store, { signer: testApprovalSigner });
    expect(await approvals.setMessageRef('ap-none', 'msg')).toBeUndefined();
    expect(await approvals.settle('ap-none', { status: 'approved' })).toEqual({ ok: false, reason: 'unknown' });
    await expect(createRunStore(store, { sequence: coordination }).update('run-none', (run) => run)).rejects.toThrow(/Unknown run "run-none"/);
  });

  it('numbers a run log without gaps or clashes when two replicas append', async () => {
    const one = await replica();
    const two = await replica();
    const runsOne = createRunStore(one.store, { sequence: one.coordination });
    const runsTwo = createRunStore(two.store, { sequence: two.coordination });
    const run = await runsOne.create({ kind: 'ask', title: 't', startedBy: 'u', where: { platform: 'slack', channelId: 'C1' } });
    await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 ? runsOne : runsTwo).appendEvent(run.id, { type: 'note', text: `n${index}` })));
    const events = await runsTwo.events(run.id);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
