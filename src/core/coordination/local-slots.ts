/**
 * Generation slots within one process: waiters served by class and arrival (`slot-priority.ts`)
 * over the servers' free slots; a grant goes to the least busy server. Same order as the Redis pool.
 */
import { AbortedError } from '../errors.js';
import type { SlotGrant, SlotPool } from './coordination.js';
import { compareWaiters, SLOT_PROMOTION_MS, type SlotTicket } from './slot-priority.js';

export interface LocalSlotsOptions {
  /** After this long a workflow's or schedule's request is served as a person's (default 5 min). */
  promoteAfterMs?: number;
  now?: () => number;
}

interface LocalWaiter {
  id: string;
  servers: readonly string[];
  capacity: number;
  ticket: SlotTicket;
  priority: SlotTicket['priority'];
  arrivedAt: number;
  sequence: number;
  grant: (grant: SlotGrant) => void;
}

export function createLocalSlots(options: LocalSlotsOptions = {}): SlotPool {
  const now = options.now ?? Date.now;
  const promoteAfterMs = options.promoteAfterMs ?? SLOT_PROMOTION_MS;
  const used = new Map<string, number>();
  const waiters: LocalWaiter[] = [];
  let counter = 0;

  /** The waiters in the order they are served right now (promotions depend on the clock). */
  const ordered = (): LocalWaiter[] => {
    const time = now();
    return waiters.sort((a, b) => compareWaiters(a, b, time, promoteAfterMs));
  };

  const pump = (): void => {
    while (waiters.length > 0) {
      const head = ordered()[0]!;
      const free = head.servers.filter((server) => (used.get(server) ?? 0) < head.capacity);
      if (free.length === 0) return;
      const server = free.reduce((best, candidate) => ((used.get(candidate) ?? 0) < (used.get(best) ?? 0) ? candidate : best));
      waiters.shift();
      used.set(server, (used.get(server) ?? 0) + 1);
      let released = false;
      head.grant({
        server,
        release() {
          if (released) return;
          released = true;
          used.set(server, Math.max(0, (used.get(server) ?? 1) - 1));
          pump();
        },
      });
    }
  };

  return {
    acquire({ servers, capacity, signal, id, ticket }) {
      if (signal?.aborted) return Promise.reject(new AbortedError());
      return new Promise<SlotGrant>((resolve, reject) => {
        const sequence = counter++;
        const given = ticket ?? { priority: 'person' };
        const waiter: LocalWaiter = {
          id: id ?? `slot-${sequence}`,
          servers,
          capacity: Math.max(1, capacity),
          ticket: given,
          priority: given.priority,
          arrivedAt: now(),
          sequence,
          grant: (grant) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(grant);
          },
        };
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(new AbortedError());
          pump();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
        pump();
      });
    },
    position(id) {
      const index = ordered().findIndex((waiter) => waiter.id === id);
      return index < 0 ? undefined : index + 1;
    },
    async queue() {
      const time = now();
      return ordered().map((waiter, index) => ({ id: waiter.id, position: index + 1, ticket: waiter.ticket, waitedMs: time - waiter.arrivedAt }));
    },
    waiting: () => waiters.length,
    inUse: async (server) => used.get(server) ?? 0,
  };
}
