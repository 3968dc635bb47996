/** Schedules in the store's `schedules` namespace, one entry per schedule under its id (they survive restarts). */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import type { Store } from '../store/open-store.js';
import type { Schedule } from './schedule-types.js';

export interface ScheduleStore {
  add(schedule: Omit<Schedule, 'id' | 'runs'>): Promise<Schedule>;
  get(id: string): Promise<Schedule | undefined>;
  list(): Promise<Schedule[]>;
  /** Read-modify-write of one schedule; undefined (and nothing written) when it was removed meanwhile. */
  update(id: string, change: (schedule: Schedule) => Schedule): Promise<Schedule | undefined>;
  remove(id: string): Promise<boolean>;
}

class ScheduleGone extends StoreError {}

export function createScheduleStore(store: Store): ScheduleStore {
  const schedules = store.namespace<Schedule>('schedules');
  return {
    async add(input) {
      const schedule: Schedule = { ...input, id: `sch-${randomBytes(3).toString('hex')}`, runs: 0 };
      await schedules.set(schedule.id, schedule);
      return schedule;
    },
    get: (id) => schedules.get(id),
    async list() {
      const found: Schedule[] = [];
      for await (const [, schedule] of schedules.entries()) found.push(schedule);
      return found.sort((a, b) => a.createdAt - b.createdAt);
    },
    async update(id, change) {
      try {
        return await schedules.update(id, (current) => {
          if (!current) throw new ScheduleGone(`Schedule ${id} was removed.`);
          return change(current);
        });
      } catch (error) {
        if (error instanceof ScheduleGone) return undefined;
        throw error;
      }
    },
    remove: (id) => schedules.delete(id),
  };
}
