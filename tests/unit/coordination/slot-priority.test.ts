/**
 * The generation queue's order (issue 25) in one process: people first, then running workflows,
 * then schedules; first come first served within a class; a request waiting longer than the
 * promotion time is served as a person's, so a schedule never waits for ever behind a busy team.
 */
import { describe, expect, it } from 'vitest';
import { createLocalSlots } from '../../../src/core/coordination/local-slots.js';
import type { SlotGrant, SlotPool } from '../../../src/core/coordination/coordination.js';
import { effectiveRank, parseTicket, SLOT_PROMOTION_MS, type GenerationPriority } from '../../../src/core/coordination/slot-priority.js';

const SERVERS = ['gpu'];

/** One busy slot and a recorder of who is granted it next, in order. */
async function busyPool(options: { now?: () => number; promoteAfterMs?: number } = {}) {
  const slots = createLocalSlots(options);
  const holder = await slots.acquire({ servers: SERVERS, capacity: 1 });
  const granted: string[] = [];
  const grants = new Map<string, Promise<SlotGrant>>();
  const wait = (id: string, priority: GenerationPriority) => {
    const grant = slots.acquire({ servers: SERVERS, capacity: 1, id, ticket: { priority } }).then((given) => {
      granted.push(id);
      return given;
    });
    grants.set(id, grant);
  };
  /** Frees the running slot, then each next one as soon as it is granted: the order of service. */
  const drain = async (): Promise<string[]> => {
    holder.release();
    while (granted.length < grants.size) {
      const next = await Promise.race([...grants.entries()].filter(([id]) => !granted.includes(id)).map(([, grant]) => grant));
      next.release();
    }
    return granted;
  };
  return { slots, wait, drain };
}

const positions = (slots: SlotPool, ids: string[]) => ids.map((id) => slots.position(id));

describe('generation slots by class', () => {
  it('lets a person overtake a schedule and a workflow that were waiting first', async () => {
    const pool = await busyPool();
    pool.wait('audit', 'schedule');
    pool.wait('goal-step', 'workflow');
    expect(positions(pool.slots, ['audit', 'goal-step'])).toEqual([2, 1]);
    pool.wait('ana', 'person');
    expect(positions(pool.slots, ['ana', 'goal-step', 'audit'])).toEqual([1, 2, 3]);
    expect(await pool.drain()).toEqual(['ana', 'goal-step', 'audit']);
  });

  it('serves each class first come first served', async () => {
    const pool = await busyPool();
    for (const id of ['s1', 'p1', 's2', 'w1', 'p2', 'w2', 'p3']) pool.wait(id, id.startsWith('p') ? 'person' : id.startsWith('w') ? 'workflow' : 'schedule');
    expect(await pool.drain()).toEqual(['p1', 'p2', 'p3', 'w1', 'w2', 's1', 's2']);
  });

  it('promotes a request that waited past the promotion time: later people no longer overtake it', async () => {
    let now = 0;
    const pool = await busyPool({ now: () => now });
    pool.wait('audit', 'schedule');
    now = SLOT_PROMOTION_MS - 1;
    pool.wait('ana', 'person');
    // Not yet promoted: Ana goes first.
    expect(positions(pool.slots, ['ana', 'audit'])).toEqual([1, 2]);
    now = SLOT_PROMOTION_MS;
    // Promoted: it came before Ana, so it goes before her; a person arriving now waits behind both.
    pool.wait('ben', 'person');
    pool.wait('step', 'workflow');
    expect(positions(pool.slots, ['audit', 'ana', 'ben', 'step'])).toEqual([1, 2, 3, 4]);
    expect(await pool.drain()).toEqual(['audit', 'ana', 'ben', 'step']);
  });

  it('lists the waiters in the order they will be served, with their tickets', async () => {
    let now = 1_000;
    const slots = createLocalSlots({ now: () => now });
    const holder = await slots.acquire({ servers: SERVERS, capacity: 1 });
    const audit = slots.acquire({
      servers: SERVERS,
      capacity: 1,
      id: 'a',
      ticket: { priority: 'schedule', requester: 'slack:U1', character: 'Worf', channel: 'slack:T/C1' },
    });
    now = 3_000;
    const ana = slots.acquire({ servers: SERVERS, capacity: 1, id: 'b' });
    expect(await slots.queue()).toEqual([
      { id: 'b', position: 1, ticket: { priority: 'person' }, waitedMs: 0 },
      { id: 'a', position: 2, ticket: { priority: 'schedule', requester: 'slack:U1', character: 'Worf', channel: 'slack:T/C1' }, waitedMs: 2_000 },
    ]);
    holder.release();
    (await ana).release();
    (await audit).release();
    expect(await slots.queue()).toEqual([]);
  });

  it('ranks by class until the promotion time, and reads a foreign ticket defensively', () => {
    expect([effectiveRank('person', 0), effectiveRank('workflow', 0), effectiveRank('schedule', SLOT_PROMOTION_MS - 1)]).toEqual([0, 1, 2]);
    expect(effectiveRank('schedule', SLOT_PROMOTION_MS)).toBe(0);
    expect(parseTicket('{"priority":"schedule","requester":"slack:U1","text":"secret","character":7}')).toEqual({
      priority: 'schedule',
      requester: 'slack:U1',
    });
    expect(parseTicket('not json')).toEqual({ priority: 'person' });
    expect(parseTicket('{"priority":"boss"}')).toEqual({ priority: 'person' });
  });
});
