/**
 * Coordination within one process: the default with SQLite, where the data-folder lock makes this
 * process the only one. Same semantics as the Redis implementation, kept in memory.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import type { Coordination, CoordinationMessage, RateRule, TurnHolder, TurnQueues } from './coordination.js';
import { createLocalSlots } from './local-slots.js';

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

export function createLocalCoordination(options: { replicaId?: string; now?: () => number; slotPromotionMs?: number } = {}): Coordination {
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
    slots: createLocalSlots({ now, ...(options.slotPromotionMs === undefined ? {} : { promoteAfterMs: options.slotPromotionMs }) }),
    async close() {
      topics.clear();
    },
  };
}
