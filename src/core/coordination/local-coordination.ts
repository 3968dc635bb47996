/**
 * Coordination within one process: the default with SQLite, where the data-folder lock makes this
 * process the only one. Same semantics as the Redis implementation, kept in memory.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { AbortedError } from '../errors.js';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import type { Coordination, CoordinationMessage, RateRule, SlotGrant, SlotPool, TurnHolder, TurnQueues } from './coordination.js';

/** This host's name as replica ids carry it. */
export function replicaHost(): string {
  return hostname()
    .replace(/[^A-Za-z0-9.-]/g, '-')
    .slice(0, 40);
}

/** A replica id: readable in logs (host and pid) and unique across restarts. */
export function newReplicaId(): string {
  return `${replicaHost()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

function createLocalTurns(): TurnQueues {
  const threads = new Map<string, { holder: TurnHolder; queue: CoordinationMessage[] }>();
  return {
    async enter(thread, item, holder) {
      const state = threads.get(thread);
      if (!state) {
        threads.set(thread, { holder, queue: [] });
        return { run: true };
      }
      state.queue.push(item);
      return { run: false, position: state.queue.length };
    },
    async next(thread) {
      const state = threads.get(thread);
      const item = state?.queue.shift();
      if (!item) threads.delete(thread);
      return item;
    },
    async update(thread, holder) {
      const state = threads.get(thread);
      if (state) state.holder = holder;
    },
    holder: async (thread) => threads.get(thread)?.holder,
    async clear(thread) {
      const state = threads.get(thread);
      return state ? state.queue.splice(0).length : 0;
    },
    async release(thread) {
      threads.delete(thread);
    },
    // One process: a turn is never left behind by another replica.
    resume: async () => undefined,
  };
}

interface LocalWaiter {
  id: string;
  servers: readonly string[];
  capacity: number;
  grant: (grant: SlotGrant) => void;
}

/** First come first served over the servers' free slots; a grant goes to the least busy server. */
export function createLocalSlots(): SlotPool {
  const used = new Map<string, number>();
  const waiters: LocalWaiter[] = [];
  let counter = 0;

  const pump = (): void => {
    while (waiters.length > 0) {
      const head = waiters[0]!;
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
    acquire({ servers, capacity, signal, id }) {
      if (signal?.aborted) return Promise.reject(new AbortedError());
      return new Promise<SlotGrant>((resolve, reject) => {
        const waiter: LocalWaiter = {
          id: id ?? `slot-${counter++}`,
          servers,
          capacity: Math.max(1, capacity),
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
      const index = waiters.findIndex((waiter) => waiter.id === id);
      return index < 0 ? undefined : index + 1;
    },
    waiting: () => waiters.length,
    inUse: async (server) => used.get(server) ?? 0,
  };
}

/** Local token buckets and windows with the same rules as the shared ones. */
function createLocalTokens(now: () => number): (name: string, rule: RateRule) => number {
  const buckets = new Map<string, { tokens: number; at: number; spent: number[] }>();
  return (name, rule) => {
    const time = now();
    const state = buckets.get(name) ?? { tokens: rule.kind === 'bucket' ? rule.capacity : 0, at: time, spent: [] };
    buckets.set(name, state);
    if (rule.kind === 'bucket') {
      state.tokens = Math.min(rule.capacity, state.tokens + ((time - state.at) / 1000) * rule.perSecond);
      state.at = time;
      if (state.tokens >= 1) {
        state.tokens -= 1;
        return 0;
      }
      return Math.ceil(((1 - state.tokens) / rule.perSecond) * 1000);
    }
    state.spent = state.spent.filter((at) => at > time - rule.windowMs);
    if (state.spent.length < rule.limit) {
      state.spent.push(time);
      return 0;
    }
    return Math.max(1, state.spent[0]! + rule.windowMs - time);
  };
}

export function createLocalCoordination(options: { replicaId?: string; now?: () => number } = {}): Coordination {
  const replicaId = options.replicaId ?? newReplicaId();
  const now = options.now ?? Date.now;
  const claims = new Map<string, number>();
  const topics = new Map<string, Set<(message: CoordinationMessage) => void>>();
  const counters = new Map<string, number>();
  const takeToken = createLocalTokens(now);
  const mutex = createKeyedMutex();
  return {
    replicaId,
    shared: false,
    location: 'in-process',
    mutex,
    turns: createLocalTurns(),
    async claim(key, ttlMs) {
      const time = now();
      const until = claims.get(key);
      if (until !== undefined && until > time) return false;
      claims.set(key, time + ttlMs);
      if (claims.size > 10_000) for (const [old, expiry] of claims) if (expiry <= time) claims.delete(old);
      return true;
    },
    async publish(topic, message) {
      const handlers = [...(topics.get(topic) ?? [])];
      // Delivered after the publisher continues, as a broker would.
      queueMicrotask(() => {
        for (const handler of handlers) handler(structuredClone(message));
      });
      return handlers.length;
    },
    async subscribe(topic, handler) {
      const set = topics.get(topic) ?? new Set();
      topics.set(topic, set);
      set.add(handler);
      return async () => {
        set.delete(handler);
      };
    },
    isAlive: async (id) => id === replicaId,
    lead(_name, onChange) {
      let leader = true;
      queueMicrotask(() => onChange(true));
      return {
        get isLeader() {
          return leader;
        },
        async stop() {
          if (leader) onChange(false);
          leader = false;
        },
      };
    },
    takeToken: async (name, rule) => takeToken(name, rule),
    increment: (key, initial) =>
      mutex.run(`counter:${key}`, async () => {
        const value = (counters.get(key) ?? (await initial())) + 1;
        counters.set(key, value);
        return value;
      }),
    slots: createLocalSlots(),
    async close() {
      topics.clear();
    },
  };
}
