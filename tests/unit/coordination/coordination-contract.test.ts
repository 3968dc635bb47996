/**
 * One contract for both coordinations: in-process (SQLite installs) and Redis (replicas), the
 * latter against a real redis-server with two coordinations standing for two replicas.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Coordination, CoordinationMessage } from '../../../src/core/coordination/coordination.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import { openRedisCoordination } from '../../../src/core/coordination/redis-coordination.js';
import { AbortedError } from '../../../src/core/errors.js';
import type { GenerationPriority } from '../../../src/core/coordination/slot-priority.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const opened: Coordination[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((coordination) => coordination.close()));
});

let run = 0;
type Pair = { a: Coordination; b: Coordination; prefix: string };
type PairOptions = { slotPromotionMs?: number };
const kinds: [string, (options?: PairOptions) => Promise<Pair>][] = [
  [
    'in-process',
    async (options = {}) => {
      const a = createLocalCoordination(options);
      opened.push(a);
      return { a, b: a, prefix: `t${run++}` };
    },
  ],
  [
    'redis',
    async (options = {}) => {
      const a = await openRedisCoordination({ url: redis.url, leaderCheckMs: 50, leaderTtlMs: 300, ...options });
      const b = await openRedisCoordination({ url: redis.url, leaderCheckMs: 50, leaderTtlMs: 300, ...options });
      opened.push(a, b);
      return { a, b, prefix: `t${run++}` };
    },
  ],
];

describe.each(kinds)('coordination (%s)', (_kind, open) => {
  it('claims a key once, for every replica, until it expires', async () => {
    const { a, b, prefix } = await open();
    expect(await a.claim(`${prefix}:event`, 60_000)).toBe(true);
    expect(await b.claim(`${prefix}:event`, 60_000)).toBe(false);
    expect(await a.claim(`${prefix}:short`, 30)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await b.claim(`${prefix}:short`, 30)).toBe(true);
  });

  it('serializes read-modify-write on one key across replicas (no lost update)', async () => {
    const { a, b, prefix } = await open();
    let value = 0;
    const bump = (coordination: Coordination) =>
      coordination.mutex.run(`${prefix}:counter`, async () => {
        const read = value;
        await new Promise((resolve) => setTimeout(resolve, 1));
        value = read + 1;
      });
    await Promise.all(Array.from({ length: 20 }, (_, index) => bump(index % 2 ? a : b)));
    expect(value).toBe(20);
  });

  it('gives a thread one turn at a time and hands the queue over in order, once', async () => {
    const { a, b, prefix } = await open();
    const thread = `${prefix}:thread`;
    expect(await a.turns.enter(thread, { text: 'first' }, { replicaId: a.replicaId, requester: 'u1' })).toEqual({ run: true });
    expect(await b.turns.enter(thread, { text: 'second' }, { replicaId: b.replicaId, requester: 'u2' })).toEqual({ run: false, position: 1 });
    expect(await b.turns.enter(thread, { text: 'third' }, { replicaId: b.replicaId, requester: 'u3' })).toEqual({ run: false, position: 2 });
    await a.turns.update(thread, { replicaId: a.replicaId, requester: 'u1', runId: 'run-1' });
    expect(await b.turns.holder(thread)).toEqual({ replicaId: a.replicaId, requester: 'u1', runId: 'run-1' });
    expect(await a.turns.next(thread, { replicaId: a.replicaId, requester: 'u2' })).toEqual({ text: 'second' });
    expect(await a.turns.next(thread, { replicaId: a.replicaId, requester: 'u3' })).toEqual({ text: 'third' });
    expect(await a.turns.next(thread, { replicaId: a.replicaId, requester: 'u3' })).toBeUndefined();
    // Released: the next message anywhere takes the turn.
    expect(await b.turns.enter(thread, { text: 'fourth' }, { replicaId: b.replicaId, requester: 'u4' })).toEqual({ run: true });
    expect(await b.turns.clear(thread)).toBe(0);
  });

  it('publishes to subscribers on every replica and counts who received it', async () => {
    const { a, b, prefix } = await open();
    const received: CoordinationMessage[] = [];
    const arrived = new Promise<void>((resolve) => {
      void b.subscribe(`${prefix}:topic`, (message) => {
        received.push(message);
        resolve();
      });
    });
    // Subscribing is asynchronous on Redis: wait until the publish reaches someone.
    let receivers = 0;
    for (let attempt = 0; attempt < 50 && receivers === 0; attempt++) {
      receivers = await a.publish(`${prefix}:topic`, { hello: attempt });
      if (receivers === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await arrived;
    expect(receivers).toBe(1);
    expect(received[0]).toHaveProperty('hello');
    expect(await a.publish(`${prefix}:nobody`, {})).toBe(0);
  });

  it('knows which replicas are alive', async () => {
    const { a, b } = await open();
    expect(await a.isAlive(a.replicaId)).toBe(true);
    expect(await a.isAlive(b.replicaId)).toBe(true);
    expect(await a.isAlive('replica-that-never-was')).toBe(false);
  });

  it('spends a shared budget once across replicas', async () => {
    const { a, b, prefix } = await open();
    const rule = { kind: 'bucket', capacity: 3, perSecond: 1 } as const;
    const waits = [await a.takeToken(`${prefix}:b`, rule), await b.takeToken(`${prefix}:b`, rule), await a.takeToken(`${prefix}:b`, rule)];
    expect(waits).toEqual([0, 0, 0]);
    expect(await b.takeToken(`${prefix}:b`, rule)).toBeGreaterThan(0);
    const window = { kind: 'window', limit: 2, windowMs: 60_000 } as const;
    expect(await a.takeToken(`${prefix}:w`, window)).toBe(0);
    expect(await b.takeToken(`${prefix}:w`, window)).toBe(0);
    expect(await a.takeToken(`${prefix}:w`, window)).toBeGreaterThan(50_000);
  });

  it('counts from a seed, once', async () => {
    const { a, b, prefix } = await open();
    const values = await Promise.all([
      a.increment(`${prefix}:n`, async () => 10),
      b.increment(`${prefix}:n`, async () => 10),
      a.increment(`${prefix}:n`, async () => 10),
    ]);
    expect(values.sort()).toEqual([11, 12, 13]);
  });

  it('grants generation slots in arrival order over several servers, across replicas', async () => {
    const { a, b, prefix } = await open();
    const servers = [`${prefix}-s1`, `${prefix}-s2`];
    const first = await a.slots.acquire({ servers, capacity: 1, id: `${prefix}-1` });
    const second = await b.slots.acquire({ servers, capacity: 1, id: `${prefix}-2` });
    expect(new Set([first.server, second.server])).toEqual(new Set(servers));
    const order: string[] = [];
    const third = b.slots.acquire({ servers, capacity: 1, id: `${prefix}-3` }).then((grant) => (order.push('third'), grant));
    await new Promise((resolve) => setTimeout(resolve, 30));
    const fourth = a.slots.acquire({ servers, capacity: 1, id: `${prefix}-4` }).then((grant) => (order.push('fourth'), grant));
    const aborted = new AbortController();
    const fifth = a.slots.acquire({ servers, capacity: 1, id: `${prefix}-5`, signal: aborted.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(b.slots.position(`${prefix}-3`) ?? 1).toBe(1);
    aborted.abort();
    await expect(fifth).rejects.toBeInstanceOf(AbortedError);
    first.release();
    const grantedThird = await third;
    expect(grantedThird.server).toBe(first.server);
    second.release();
    const grantedFourth = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    expect(await a.slots.inUse(second.server)).toBe(1);
    grantedThird.release();
    grantedFourth.release();
  });

  it('grants slots to people before workflows before schedules, first come first served within a class, across replicas', async () => {
    const { a, b, prefix } = await open();
    const servers = [`${prefix}-gpu`];
    const running = await a.slots.acquire({ servers, capacity: 1, id: `${prefix}-run` });
    const order: string[] = [];
    const wait = (on: Coordination, name: string, priority: GenerationPriority) => {
      const id = `${prefix}-${name}`;
      const grant = on.slots
        .acquire({ servers, capacity: 1, id, ticket: { priority, requester: `slack:${name}`, channel: 'slack:T/C1', character: 'Geordi' } })
        .then((given) => (order.push(name), given));
      return { id, grant };
    };
    const audit = wait(b, 'audit', 'schedule');
    await expect.poll(() => b.slots.position(audit.id)).toBe(1);
    const step = wait(a, 'step', 'workflow');
    await expect.poll(() => a.slots.position(step.id)).toBe(1);
    const ana = wait(b, 'ana', 'person');
    const ben = wait(a, 'ben', 'person');
    await expect
      .poll(async () => (await a.slots.queue()).filter((waiter) => waiter.id.startsWith(prefix)).map((waiter) => waiter.id))
      .toEqual([ana, ben, step, audit].map((waiter) => waiter.id));
    const listed = (await b.slots.queue()).find((waiter) => waiter.id === audit.id);
    expect(listed?.ticket).toEqual({ priority: 'schedule', requester: 'slack:audit', channel: 'slack:T/C1', character: 'Geordi' });
    running.release();
    for (const waiter of [ana, ben, step, audit]) (await waiter.grant).release();
    expect(order).toEqual(['ana', 'ben', 'step', 'audit']);
  });

  it('serves a schedule that waited past the promotion time before a person who came later', async () => {
    const { a, b, prefix } = await open({ slotPromotionMs: 300 });
    const servers = [`${prefix}-gpu`];
    const running = await a.slots.acquire({ servers, capacity: 1, id: `${prefix}-run` });
    const order: string[] = [];
    const audit = b.slots
      .acquire({ servers, capacity: 1, id: `${prefix}-audit`, ticket: { priority: 'schedule' } })
      .then((given) => (order.push('audit'), given));
    // Its wait, as the queue reports it, passes the promotion time.
    await expect
      .poll(async () => (await a.slots.queue()).find((waiter) => waiter.id === `${prefix}-audit`)?.waitedMs ?? 0, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(300);
    const ana = a.slots.acquire({ servers, capacity: 1, id: `${prefix}-ana`, ticket: { priority: 'person' } }).then((given) => (order.push('ana'), given));
    await expect
      .poll(async () => (await b.slots.queue()).filter((waiter) => waiter.id.startsWith(prefix)).map((waiter) => waiter.id))
      .toEqual([`${prefix}-audit`, `${prefix}-ana`]);
    running.release();
    (await audit).release();
    (await ana).release();
    expect(order).toEqual(['audit', 'ana']);
  });

  it('lets one replica lead, and another take over when it stops', async () => {
    const { a, b, prefix } = await open();
    const changes: string[] = [];
    const leadA = a.lead(`${prefix}:gateway`, (leader) => changes.push(`a:${leader}`));
    await expect.poll(() => leadA.isLeader).toBe(true);
    if (a === b) {
      await leadA.stop();
      expect(changes).toEqual(['a:true', 'a:false']);
      return;
    }
    const leadB = b.lead(`${prefix}:gateway`, (leader) => changes.push(`b:${leader}`));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(leadB.isLeader).toBe(false);
    await leadA.stop();
    await expect.poll(() => leadB.isLeader).toBe(true);
    expect(changes).toEqual(['a:true', 'a:false', 'b:true']);
    await leadB.stop();
  });
});

describe('redis coordination', () => {
  it('fails with one sentence naming Redis when it does not answer', async () => {
    await expect(openRedisCoordination({ url: 'redis://127.0.0.1:1' })).rejects.toThrow(/Redis at redis:\/\/127\.0\.0\.1:1 does not answer/);
  });

  it('forgets a replica whose lease lapsed, and frees the turns it held', async () => {
    const a = await openRedisCoordination({ url: redis.url, leaseRenewMs: 10_000, leaseTtlMs: 200 });
    const b = await openRedisCoordination({ url: redis.url });
    opened.push(a, b);
    expect(await a.turns.enter('lapse:thread', {}, { replicaId: a.replicaId, requester: 'u' })).toEqual({ run: true });
    expect(await b.isAlive(a.replicaId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await b.isAlive(a.replicaId)).toBe(false);
    expect(await b.turns.enter('lapse:thread', {}, { replicaId: b.replicaId, requester: 'u' })).toEqual({ run: true });
  });
});
