/**
 * Generation slots shared by every replica through Redis: one queue of waiters ordered by class
 * (people, workflows, schedules; a long wait promoted — `slot-priority.ts`) and then arrival, with
 * each waiter's ticket for `/tsuka queue`, and per server a set of holders with leases (renewed with the replica's heartbeat, so a killed
 * replica's slots come back within the lease). Waiters ask again when a slot is released
 * (pub/sub) and at least every 250 ms, so one that stopped asking is dropped after 10 s.
 */
import { randomBytes } from 'node:crypto';
import { AbortedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SlotGrant, SlotPool } from './coordination.js';
import type { RedisClient } from './redis-connection.js';
import { SLOT_ACQUIRE, SLOT_COUNT, SLOT_QUEUE, SLOT_RENEW } from './redis-scripts.js';
import { parseTicket, PRIORITY_RANK, SLOT_PROMOTION_MS, type SlotTicket, type SlotWaiter } from './slot-priority.js';

const WAITERS = 'tsuka:slots:waiters';
const SEEN = 'tsuka:slots:seen';
const SEQ = 'tsuka:slots:seq';
const SINCE = 'tsuka:slots:since';
const TICKETS = 'tsuka:slots:tickets';
const KEYS = [WAITERS, SEEN, SEQ, SINCE, TICKETS];
const RELEASED = 'tsuka:slots:released';
const POLL_MS = 250;
const WAITER_STALE_MS = 10_000;

export interface RedisSlots extends SlotPool {
  renew(): Promise<void>;
  stop(): void;
}

export interface RedisSlotsOptions {
  client: RedisClient;
  subscriber: RedisClient;
  leaseMs: number;
  logger: Logger;
  /** After this long a workflow's or schedule's request is served as a person's (default 5 min). */
  promoteAfterMs?: number;
}

export function createRedisSlots(options: RedisSlotsOptions): RedisSlots {
  const { client, subscriber, leaseMs, logger } = options;
  const promoteAfterMs = String(options.promoteAfterMs ?? SLOT_PROMOTION_MS);
  const held = new Map<string, string>();
  const positions = new Map<string, number>();
  const wakers = new Set<() => void>();
  let subscribed: Promise<unknown> | undefined;
  let stopped = false;

  const wakeAll = () => {
    for (const wake of [...wakers]) wake();
  };
  const ensureSubscribed = () => {
    subscribed ??= subscriber.subscribe(RELEASED, wakeAll).catch((error: unknown) => logger.warn('could not subscribe to slot releases', { error }));
    return subscribed;
  };

  async function tryAcquire(id: string, servers: readonly string[], capacity: number, ticket: SlotTicket): Promise<SlotGrant | number> {
    const reply = (await client.eval(SLOT_ACQUIRE, {
      keys: KEYS,
      arguments: [
        id,
        String(capacity),
        String(leaseMs),
        String(WAITER_STALE_MS),
        String(PRIORITY_RANK[ticket.priority]),
        promoteAfterMs,
        JSON.stringify(ticket),
        ...servers,
      ],
    })) as [number, string | number];
    if (Number(reply[0]) !== 1) return Number(reply[1]);
    const server = String(reply[1]);
    held.set(id, server);
    let released = false;
    return {
      server,
      release() {
        if (released) return;
        released = true;
        held.delete(id);
        void client
          .zRem(`tsuka:slots:held:${server}`, id)
          .then(() => client.publish(RELEASED, server))
          .catch((error: unknown) => logger.warn('could not release a generation slot in Redis (its lease frees it)', { server, error }));
      },
    };
  }

  return {
    async acquire({ servers, capacity, signal, id, ticket }) {
      const waiterId = id ?? `slot-${randomBytes(6).toString('hex')}`;
      await ensureSubscribed();
      try {
        for (;;) {
          if (signal?.aborted || stopped) throw new AbortedError();
          const result = await tryAcquire(waiterId, servers, Math.max(1, capacity), ticket ?? { priority: 'person' });
          if (typeof result !== 'number') return result;
          positions.set(waiterId, result);
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              wakers.delete(done);
              signal?.removeEventListener('abort', done);
              resolve();
            };
            const timer = setTimeout(done, POLL_MS);
            wakers.add(done);
            signal?.addEventListener('abort', done, { once: true });
          });
        }
      } catch (error) {
        await client
          .multi()
          .zRem(WAITERS, waiterId)
          .zRem(SEEN, waiterId)
          .zRem(SINCE, waiterId)
          .hDel(TICKETS, waiterId)
          .exec()
          .catch(() => undefined);
        throw error;
      } finally {
        positions.delete(waiterId);
      }
    },
    position: (id) => positions.get(id),
    async queue() {
      const reply = (await client.eval(SLOT_QUEUE, { keys: KEYS, arguments: [String(WAITER_STALE_MS), promoteAfterMs] })) as (string | number)[];
      const now = Number(reply[0]);
      const waiters: SlotWaiter[] = [];
      for (let index = 1; index + 2 < reply.length; index += 3) {
        const since = Number(reply[index + 2]);
        waiters.push({
          id: String(reply[index]),
          position: waiters.length + 1,
          ticket: parseTicket(String(reply[index + 1])),
          waitedMs: Math.max(0, now - since),
        });
      }
      return waiters;
    },
    waiting: () => positions.size,
    inUse: async (server) => Number(await client.eval(SLOT_COUNT, { keys: [`tsuka:slots:held:${server}`], arguments: [] })),
    async renew() {
      for (const [id, server] of held) await client.eval(SLOT_RENEW, { keys: [`tsuka:slots:held:${server}`], arguments: [id, String(leaseMs)] });
    },
    stop() {
      stopped = true;
      wakeAll();
    },
  };
}
