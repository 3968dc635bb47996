/** Issue 25: schedules read by croner, fired once per slot across replicas, never twice at once, missed runs once at start. */
import { describe, expect, it } from 'vitest';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import { silentLogger } from '../../../src/core/logger.js';
import { nextFiring, parseSchedule } from '../../../src/core/schedules/parse-schedule.js';
import { createScheduleRunner } from '../../../src/core/schedules/schedule-runner.js';
import { createScheduleStore, type ScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import type { Schedule } from '../../../src/core/schedules/schedule-types.js';
import { openStore } from '../../../src/core/store/open-store.js';

const T0 = Date.UTC(2026, 0, 5, 6, 0, 0);

async function fixture(at: { now: number }) {
  const store = await openStore({ url: 'memory://', dataDirectory: '/nonexistent' });
  const schedules = createScheduleStore(store);
  const fired: { id: string; by: string }[] = [];
  const release: (() => void)[] = [];
  const runner = (coordination = createLocalCoordination()) =>
    createScheduleRunner({
      schedules,
      coordination,
      logger: silentLogger,
      now: () => at.now,
      fire: (schedule) => {
        fired.push({ id: schedule.id, by: coordination.replicaId });
        return new Promise<void>((resolve) => release.push(resolve));
      },
    });
  return { schedules, fired, release, runner };
}

const every = (schedules: ScheduleStore, ms: number, nextAt: number, extra: Partial<Schedule> = {}) =>
  schedules.add({
    platform: 'slack',
    channel: 'slack:T/C1',
    owner: 'slack:U1',
    when: `every ${ms / 1000}s`,
    spec: { kind: 'every', ms },
    what: '@geordi ping',
    missed: 'once',
    createdAt: T0,
    nextAt,
    ...extra,
  });

describe('parseSchedule', () => {
  it('reads every, daily and five cron fields (through croner), and what to run after them', () => {
    expect(parseSchedule('every 30s @geordi ping', { minIntervalMs: 30_000 })).toEqual({
      ok: true,
      spec: { kind: 'every', ms: 30_000 },
      when: 'every 30s',
      what: '@geordi ping',
      missed: 'once',
    });
    expect(parseSchedule('every 2 h /team dev fix it')).toMatchObject({ spec: { kind: 'every', ms: 7_200_000 }, what: '/team dev fix it' });
    expect(parseSchedule('daily 07:30 --skip-missed /goal audit deps')).toMatchObject({
      spec: { kind: 'daily', hour: 7, minute: 30 },
      what: '/goal audit deps',
      missed: 'skip',
    });
    expect(parseSchedule('0 7 * * 1-5  @geordi morning digest')).toMatchObject({
      spec: { kind: 'cron', expression: '0 7 * * 1-5' },
      when: '0 7 * * 1-5',
      what: '@geordi morning digest',
    });
    expect(parseSchedule('61 7 * * * @geordi x')).toMatchObject({ ok: false, message: expect.stringContaining('not a cron expression') });
    expect(parseSchedule('daily 25:00 @geordi x')).toMatchObject({ ok: false });
    expect(parseSchedule('every 5m')).toMatchObject({ ok: false, message: expect.stringContaining('Say what to run') });
  });

  it('computes the next firing in the configured time zone', () => {
    expect(nextFiring({ kind: 'every', ms: 2_000 }, T0)).toBe(T0 + 2_000);
    // 07:30 in Berlin (UTC+1 in January) is 06:30 UTC.
    expect(new Date(nextFiring({ kind: 'daily', hour: 7, minute: 30 }, T0, 'Europe/Berlin')).toISOString()).toBe('2026-01-05T06:30:00.000Z');
    expect(new Date(nextFiring({ kind: 'cron', expression: '0 7 * * 1-5' }, T0, 'UTC')).toISOString()).toBe('2026-01-05T07:00:00.000Z');
  });
});

describe('the schedule runner', () => {
  it('fires each due slot once even when two replicas share the store and the coordination', async () => {
    const at = { now: T0 };
    const f = await fixture(at);
    const shared = createLocalCoordination({ replicaId: 'a' });
    const a = f.runner(shared);
    // The second replica shares the claims (as two processes share Redis) but is another replica.
    const b = f.runner({ ...shared, replicaId: 'b', claim: shared.claim.bind(shared), isAlive: shared.isAlive.bind(shared) } as typeof shared);
    await every(f.schedules, 2_000, T0);
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    expect(f.fired).toHaveLength(1);
    f.release.forEach((done) => done());
    await new Promise((resolve) => setImmediate(resolve));
    at.now = T0 + 2_500;
    await Promise.all([b.tick(), a.tick()]);
    expect(f.fired).toHaveLength(2);
  });

  it('skips a slot while the previous firing still runs, and fires again once it ended', async () => {
    const at = { now: T0 };
    const f = await fixture(at);
    const runner = f.runner();
    const schedule = await every(f.schedules, 1_000, T0);
    await runner.tick();
    at.now = T0 + 1_500;
    await runner.tick();
    at.now = T0 + 3_000;
    await runner.tick();
    expect(f.fired).toHaveLength(1);
    expect((await f.schedules.get(schedule.id))?.firing).toBeDefined();
    f.release[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await f.schedules.get(schedule.id))?.firing).toBeUndefined();
    at.now = T0 + 4_500;
    await runner.tick();
    expect(f.fired).toHaveLength(2);
  });

  it('runs slots missed while down once at start (not once per miss), or skips them when asked', async () => {
    const at = { now: T0 + 10 * 60_000 };
    const f = await fixture(at);
    const once = await every(f.schedules, 60_000, T0);
    const skipped = await every(f.schedules, 60_000, T0, { missed: 'skip' });
    // A firing left by the process that stopped does not count as running.
    await f.schedules.update(once.id, (current) => ({ ...current, firing: { replica: 'gone-1-abcdef', at: T0 } }));
    const runner = f.runner();
    await runner.tick();
    await runner.tick();
    expect(f.fired.map((entry) => entry.id)).toEqual([once.id]);
    expect((await f.schedules.get(skipped.id))?.nextAt).toBe(at.now + 60_000);
    expect((await f.schedules.get(once.id))?.runs).toBe(1);
  });

  it('does not fire a schedule removed before its time', async () => {
    const at = { now: T0 };
    const f = await fixture(at);
    const schedule = await every(f.schedules, 1_000, T0 + 1_000);
    await f.schedules.remove(schedule.id);
    at.now = T0 + 5_000;
    await f.runner().tick();
    expect(f.fired).toEqual([]);
  });
});
