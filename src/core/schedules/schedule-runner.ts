/**
 * The one schedule runner of a process (issue 25). Every `tickMs` it looks for schedules whose
 * time has come; each due slot is claimed through the coordination (`schedule:<id>:<slot>`), so of
 * several replicas sharing one store exactly one fires it. A schedule never runs twice at once: a
 * slot that comes while its previous firing still runs on a live replica is skipped. A slot missed
 * while no process was up fires once at start (or is skipped, per schedule) — never once per miss.
 */
import type { Coordination } from '../coordination/coordination.js';
import type { Logger } from '../logger.js';
import { nextFiring } from './parse-schedule.js';
import type { ScheduleStore } from './schedule-store.js';
import type { FiringAdmission, Schedule } from './schedule-types.js';

/** How long a slot's claim is kept: far longer than any replica takes to see that the slot moved on. */
const SLOT_CLAIM_MS = 60 * 60_000;
/** A slot later than this when seen counts as missed (no process was up): `skip` schedules pass it. */
const MISSED_AFTER_MS = 60_000;

export interface ScheduleRunnerOptions {
  schedules: ScheduleStore;
  coordination: Pick<Coordination, 'claim' | 'isAlive' | 'replicaId'>;
  /** Runs one firing to its end (the run it starts, in its channel, as its owner). */
  fire(schedule: Schedule, firedAt: number): Promise<void>;
  /** Asked just before each firing whether its owner may still act in its channel; absent: always fire. */
  admit?(schedule: Schedule): Promise<FiringAdmission>;
  /** Tells the owner their schedule was paused (`reason` says why); called once, by the replica that paused it. */
  paused?(schedule: Schedule, reason: string): Promise<void>;
  logger: Logger;
  timezone?: string;
  tickMs?: number;
  now?: () => number;
}

export interface ScheduleRunner {
  /** One pass now (missed slots fire), then one every `tickMs`. */
  start(): void;
  /** No new firing starts; firings under way are runs, stopped with the others. */
  stop(): void;
  /** One pass; resolves once due firings have started (not ended). */
  tick(): Promise<void>;
  /** Firings of this process still running. */
  running(): number;
}

export function createScheduleRunner(options: ScheduleRunnerOptions): ScheduleRunner {
  const now = options.now ?? Date.now;
  const me = options.coordination.replicaId;
  const inFlight = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let stopped = false;

  // True when the schedule's previous firing still runs somewhere alive.
  async function busy(schedule: Schedule): Promise<boolean> {
    if (inFlight.has(schedule.id)) return true;
    const firing = schedule.firing;
    if (!firing || firing.replica === me) return false;
    return options.coordination.isAlive(firing.replica);
  }

  async function consider(schedule: Schedule): Promise<void> {
    const time = now();
    if (schedule.nextAt > time || stopped || schedule.paused) return;
    const slot = schedule.nextAt;
    if (!(await options.coordination.claim(`schedule:${schedule.id}:${slot}`, SLOT_CLAIM_MS))) return;
    const next = nextFiring(schedule.spec, time, options.timezone);
    const skipMissed = schedule.missed === 'skip' && time - slot > MISSED_AFTER_MS;
    if (skipMissed || (await busy(schedule))) {
      options.logger.info(skipMissed ? 'scheduled run missed while down: skipped' : 'scheduled run skipped: the previous one still runs', {
        scheduleId: schedule.id,
        slot,
      });
      await options.schedules.update(schedule.id, (current) => ({ ...current, nextAt: next }));
      return;
    }
    if (!(await admitted(schedule, next, time))) return;
    const firing = await options.schedules.update(schedule.id, (current) => ({
      ...current,
      nextAt: next,
      lastFiredAt: time,
      runs: current.runs + 1,
      firing: { replica: me, at: time },
    }));
    if (!firing) return;
    const done = options
      .fire(firing, time)
      .catch((error: unknown) => options.logger.error('a scheduled run failed to start', { scheduleId: schedule.id, error }))
      .then(() => options.schedules.update(schedule.id, ({ firing: _ended, ...rest }) => rest))
      .then(
        () => undefined,
        (error: unknown) => options.logger.warn('could not record the end of a scheduled run', { scheduleId: schedule.id, error }),
      )
      .finally(() => inFlight.delete(schedule.id));
    inFlight.set(schedule.id, done);
  }

  // The owner's rights at this moment: a refusal pauses the schedule (and says so to the owner) or skips this slot.
  async function admitted(schedule: Schedule, next: number, time: number): Promise<boolean> {
    if (!options.admit) return true;
    const admission = await options
      .admit(schedule)
      .catch((error: unknown): FiringAdmission => ({ verdict: 'skip', reason: `the check failed (${(error as Error).message})` }));
    if (admission.verdict === 'fire') return true;
    options.logger.warn(admission.verdict === 'pause' ? 'schedule paused: its owner may no longer act in its channel' : 'scheduled run skipped', {
      scheduleId: schedule.id,
      reason: admission.reason,
    });
    const pause = admission.verdict === 'pause' ? { paused: { at: time, reason: admission.reason } } : {};
    const updated = await options.schedules.update(schedule.id, (current) => ({ ...current, nextAt: next, ...pause }));
    if (updated && admission.verdict === 'pause' && options.paused) {
      await options
        .paused(updated, admission.reason)
        .catch((error: unknown) => options.logger.warn('could not tell the owner their schedule was paused', { scheduleId: schedule.id, error }));
    }
    return false;
  }

  async function pass(): Promise<void> {
    for (const schedule of await options.schedules.list()) {
      await consider(schedule).catch((error: unknown) => options.logger.warn('could not consider a schedule', { scheduleId: schedule.id, error }));
    }
  }

  const tick = (): Promise<void> => {
    ticking ??= pass()
      .catch((error: unknown) => options.logger.warn('could not read the schedules', { error }))
      .finally(() => (ticking = undefined));
    return ticking;
  };

  return {
    start() {
      stopped = false;
      void tick();
      timer = setInterval(() => void tick(), options.tickMs ?? 1_000);
      timer.unref?.();
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    tick,
    running: () => inFlight.size,
  };
}
