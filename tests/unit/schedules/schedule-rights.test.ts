/** Issue 41: a schedule's floor (TSUKA_SCHEDULE_MIN_INTERVAL_S) and a firing that pauses when its owner may no longer act. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import { silentLogger } from '../../../src/core/logger.js';
import { parseSchedule } from '../../../src/core/schedules/parse-schedule.js';
import { createScheduleRunner } from '../../../src/core/schedules/schedule-runner.js';
import { createScheduleStore } from '../../../src/core/schedules/schedule-store.js';
import type { FiringAdmission, Schedule } from '../../../src/core/schedules/schedule-types.js';
import { openStore } from '../../../src/core/store/open-store.js';

const T0 = Date.UTC(2026, 0, 5, 6, 0, 0);

describe('the schedules’ floor', () => {
  it('refuses `every 1s` and a cron firing each minute under a longer floor, with a message naming the setting', () => {
    const refused = parseSchedule('every 1s @geordi ping');
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok ? '' : refused.message).toContain('at most once every minute (TSUKA_SCHEDULE_MIN_INTERVAL_S); "every 1s" would run every second');
    expect(parseSchedule('every 59s @geordi ping')).toMatchObject({ ok: false });
    expect(parseSchedule('every 1m @geordi ping')).toMatchObject({ ok: true, spec: { kind: 'every', ms: 60_000 } });
    expect(parseSchedule('* * * * * @geordi ping')).toMatchObject({ ok: true });
    const cron = parseSchedule('*/2 * * * * @geordi ping', { minIntervalMs: 300_000 });
    expect(cron.ok ? '' : cron.message).toContain('at most once every 5 minutes');
    expect(parseSchedule('daily 07:30 @geordi ping', { minIntervalMs: 3_600_000 })).toMatchObject({ ok: true });
  });

  it('is read once in the settings: 60 s by default, TSUKA_SCHEDULE_MIN_INTERVAL_S otherwise', () => {
    const base = { TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1', TSUKA_DATA_DIR: '/tmp/tsuka-floor-data', TSUKA_WORKSPACE: '/tmp/tsuka-floor-ws' };
    const options = { workingDirectory: '/nonexistent-tsuka-floor', rootDirectory: '/nonexistent-tsuka-floor' };
    expect(loadConfig({ ...options, environment: base }).scheduleMinIntervalMs).toBe(60_000);
    expect(loadConfig({ ...options, environment: { ...base, TSUKA_SCHEDULE_MIN_INTERVAL_S: '300' } }).scheduleMinIntervalMs).toBe(300_000);
    expect(() => loadConfig({ ...options, environment: { ...base, TSUKA_SCHEDULE_MIN_INTERVAL_S: '0' } })).toThrow(/TSUKA_SCHEDULE_MIN_INTERVAL_S/);
  });
});

describe('a firing asks first', () => {
  async function fixture(admission: () => FiringAdmission) {
    const at = { now: T0 };
    const store = await openStore({ url: 'memory://', dataDirectory: '/nonexistent' });
    const schedules = createScheduleStore(store);
    const fired: string[] = [];
    const told: { id: string; reason: string }[] = [];
    const runner = createScheduleRunner({
      schedules,
      coordination: createLocalCoordination(),
      logger: silentLogger,
      now: () => at.now,
      fire: async (schedule) => void fired.push(schedule.id),
      admit: async () => admission(),
      paused: async (schedule, reason) => void told.push({ id: schedule.id, reason }),
    });
    const schedule = await schedules.add({
      platform: 'slack',
      channel: 'slack:T/G1',
      owner: 'slack:U1',
      when: 'every 60s',
      spec: { kind: 'every', ms: 60_000 },
      what: '@geordi ping',
      missed: 'once',
      createdAt: T0,
      nextAt: T0,
    });
    return { at, schedules, fired, told, runner, schedule };
  }

  it('pauses (and tells the owner once) instead of firing when the owner may no longer act; later slots do not fire', async () => {
    const { at, schedules, fired, told, runner, schedule } = await fixture(() => ({ verdict: 'pause', reason: 'you are no longer a member of that channel' }));
    await runner.tick();
    at.now += 60_000;
    await runner.tick();
    expect(fired).toEqual([]);
    expect(told).toEqual([{ id: schedule.id, reason: 'you are no longer a member of that channel' }]);
    expect(((await schedules.get(schedule.id)) as Schedule).paused).toEqual({ at: T0, reason: 'you are no longer a member of that channel' });
  });

  it('skips only this slot when nothing could be confirmed, and fires the next once admitted', async () => {
    let verdict: FiringAdmission = { verdict: 'skip', reason: 'Slack did not answer' };
    const { at, schedules, fired, told, runner, schedule } = await fixture(() => verdict);
    await runner.tick();
    expect(fired).toEqual([]);
    expect(told).toEqual([]);
    expect((await schedules.get(schedule.id))?.paused).toBeUndefined();
    verdict = { verdict: 'fire' };
    at.now += 60_000;
    await runner.tick();
    expect(fired).toEqual([schedule.id]);
  });
});

describe('Discord: who may read a channel now', () => {
  it('follows the @everyone, role and member overwrites of VIEW_CHANNEL', async () => {
    const { viewAllowed } = await import('../../../src/adapters/discord/channel-members.js');
    const VIEW = String(1 << 10);
    const channel = {
      guild_id: 'G',
      permission_overwrites: [
        { id: 'G', type: 0, deny: VIEW },
        { id: 'R_OPS', type: 0, allow: VIEW },
        { id: 'U_GONE', type: 1, deny: VIEW },
      ],
    };
    expect(viewAllowed(channel, 'U_ANY', [])).toBe(false);
    expect(viewAllowed(channel, 'U_OPS', ['R_OPS'])).toBe(true);
    expect(viewAllowed(channel, 'U_GONE', ['R_OPS'])).toBe(false);
    expect(viewAllowed({ guild_id: 'G' }, 'U_ANY', [])).toBe(true);
  });
});
