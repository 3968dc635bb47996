/**
 * Coordination through Redis, for several replicas on `TSUKA_STORE_URL=redis://…`: locks and
 * claims are `SET NX PX`, check-and-write steps are Lua scripts (redis-scripts.ts), messages go
 * through pub/sub on a second connection, and this replica's lease (`tsuka:replica:<id>`) is
 * renewed every 10 s with a 30 s expiry together with the turns, slots and leaderships it holds.
 * Standalone Redis (or Valkey); not Redis Cluster (the scripts touch keys they compute).
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { createKeyedMutex, type KeyedMutex } from '../store/keyed-mutex.js';
import { redactStoreUrl } from '../store/external-backend.js';
import { LEASE_RENEW_MS, LEASE_TTL_MS, type Coordination, type CoordinationMessage, type Leadership, type TurnQueues } from './coordination.js';
import { newReplicaId } from './local-coordination.js';
import { LEAD, RELEASE_LOCK, TAKE_TOKEN, TURN_ENTER, TURN_NEXT, TURN_RELEASE, TURN_RENEW, TURN_RESUME, TURN_UPDATE } from './redis-scripts.js';
import { createRedisSlots } from './redis-slots.js';
import { connectRedis, type RedisClient } from './redis-connection.js';
import { createStoreMarker } from './redis-store-marker.js';

const PREFIX = 'tsuka:';
const LOCK_TTL_MS = 10_000;
/** A counter unused this long is dropped; the next use seeds it again (`initial()`), so nothing is lost. */
const COUNTER_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** A leadership lapses this long after its holder's last renewal; others look this often. */
export const LEADER_TTL_MS = 15_000;
export const LEADER_CHECK_MS = 5_000;

export interface RedisCoordinationOptions {
  url: string;
  logger?: Logger;
  replicaId?: string;
  leaseRenewMs?: number;
  leaseTtlMs?: number;
  leaderCheckMs?: number;
  leaderTtlMs?: number;
  /** After this long a workflow's or schedule's generation request is served as a person's (default 5 min). */
  slotPromotionMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects (failing with one clear sentence when Redis does not answer) and starts the heartbeat. */
export async function openRedisCoordination(options: RedisCoordinationOptions): Promise<Coordination> {
  const logger = options.logger ?? silentLogger;
  const location = redactStoreUrl(options.url);
  const replicaId = options.replicaId ?? newReplicaId();
  const renewMs = options.leaseRenewMs ?? LEASE_RENEW_MS;
  const ttlMs = options.leaseTtlMs ?? LEASE_TTL_MS;
  let lastError = '';
  const [client, subscriber] = (await connectRedis(options.url, {
    count: 2,
    onError: (error) => {
      const text = error instanceof Error ? error.message : String(error);
      if (text !== lastError) logger.warn('Redis connection error', { location, error: text });
      lastError = text;
    },
  })) as [RedisClient, RedisClient];

  const key = (name: string) => PREFIX + name;
  const heldTurns = new Set<string>();
  const leaderships = new Set<() => Promise<void>>();
  const handlers = new Map<string, Set<(message: CoordinationMessage) => void>>();
  let closed = false;

  /** A Redis failure becomes one sentence naming Redis (the user sees it; the cause goes to the log). */
  const unreachable = (error: unknown): never => {
    if (error instanceof StoreError) throw error;
    // Said in chat: no address there (the log has it, with the cause).
    logger.warn('a Redis call failed', { location, error });
    throw new StoreError('The shared state (Redis) does not answer right now; try again in a moment.', { cause: error });
  };
  const local = createKeyedMutex();
  const mutex: KeyedMutex = {
    run: (name, task) =>
      local.run(name, async () => {
        const lock = key(`lock:${name}`);
        const token = randomBytes(8).toString('hex');
        for (let attempt = 0; ; attempt++) {
          // Only taking the lock is Redis's failure; what the task throws stays the task's own error.
          if (await client.set(lock, token, { condition: 'NX', expiration: { type: 'PX', value: LOCK_TTL_MS } }).catch(unreachable)) break;
          await sleep(Math.min(50, 2 * 2 ** attempt));
        }
        try {
          return await task();
        } finally {
          await client.eval(RELEASE_LOCK, { keys: [lock], arguments: [token] }).catch(() => undefined);
        }
      }),
  };

  const turnKeys = (thread: string) => [key(`turn:${thread}`), key(`turn-queue:${thread}`)];
  const turns: TurnQueues = {
    async enter(thread, item, holder) {
      const result = Number(
        await client.eval(TURN_ENTER, { keys: turnKeys(thread), arguments: [JSON.stringify(holder), JSON.stringify(item), String(ttlMs)] }),
      );
      if (result === 0) {
        heldTurns.add(thread);
        return { run: true };
      }
      return { run: false, position: result };
    },
    async next(thread, holder) {
      const item = await client.eval(TURN_NEXT, { keys: turnKeys(thread), arguments: [JSON.stringify(holder), String(ttlMs), replicaId] });
      if (typeof item !== 'string') {
        heldTurns.delete(thread);
        return undefined;
      }
      return JSON.parse(item) as CoordinationMessage;
    },
    async update(thread, holder) {
      await client.eval(TURN_UPDATE, { keys: [key(`turn:${thread}`)], arguments: [JSON.stringify(holder), String(ttlMs), replicaId] });
    },
    async holder(thread) {
      const value = await client.get(key(`turn:${thread}`));
      return value ? (JSON.parse(value) as import('./coordination.js').TurnHolder) : undefined;
    },
    async clear(thread) {
      const [, queue] = turnKeys(thread);
      const length = await client.lLen(queue!);
      await client.del(queue!);
      return Number(length);
    },
    async release(thread) {
      heldTurns.delete(thread);
      await client.eval(TURN_RELEASE, { keys: [key(`turn:${thread}`)], arguments: [replicaId] });
    },
    async resume(thread, holder, from) {
      const item = await client.eval(TURN_RESUME, { keys: turnKeys(thread), arguments: [JSON.stringify(holder), String(ttlMs), from ?? ''] });
      if (typeof item !== 'string') return undefined;
      heldTurns.add(thread);
      return JSON.parse(item) as CoordinationMessage;
    },
  };

  const slots = createRedisSlots({ client, subscriber, leaseMs: ttlMs, logger, promoteAfterMs: options.slotPromotionMs });

  const marker = createStoreMarker({ client, logger, location });
  await marker.check();
  // A connection that comes back may find a Redis that came back empty: looked at at once.
  client.on('ready', () => void marker.check());
  const beat = async () => {
    await marker.check();
    await client.set(key(`replica:${replicaId}`), String(Date.now()), { expiration: { type: 'PX', value: ttlMs } });
    for (const thread of heldTurns) await client.eval(TURN_RENEW, { keys: [key(`turn:${thread}`)], arguments: [String(ttlMs), replicaId] });
    await slots.renew();
  };
  await beat();
  const heartbeat = setInterval(() => {
    beat().catch((error: unknown) => logger.warn('could not renew this replica lease in Redis', { error }));
  }, renewMs);
  heartbeat.unref();

  const guarded = <T extends object>(target: T): T => {
    for (const [name, value] of Object.entries(target)) {
      if (typeof value === 'function')
        (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
          const result: unknown = (value as (...a: unknown[]) => unknown)(...args);
          return result instanceof Promise ? result.catch(unreachable) : result;
        };
    }
    return target;
  };
  guarded(turns);

  return guarded({
    replicaId,
    shared: true,
    location,
    mutex,
    turns,
    async claim(name, claimTtlMs) {
      return (
        (await client.set(key(`claim:${name}`), replicaId, { condition: 'NX', expiration: { type: 'PX', value: Math.max(1, Math.round(claimTtlMs)) } })) ===
        'OK'
      );
    },
    async publish(topic, message) {
      return Number(await client.publish(key(`topic:${topic}`), JSON.stringify(message)));
    },
    async subscribe(topic, handler) {
      const channel = key(`topic:${topic}`);
      let set = handlers.get(channel);
      if (set) set.add(handler);
      else {
        const created = new Set<(message: CoordinationMessage) => void>([handler]);
        set = created;
        handlers.set(channel, created);
        // The handler is in the set before the subscription is confirmed: the first message is never dropped.
        await subscriber.subscribe(channel, (raw) => {
          let message: CoordinationMessage;
          try {
            message = JSON.parse(raw) as CoordinationMessage;
          } catch (error) {
            logger.warn('dropped a malformed coordination message', { channel, error });
            return;
          }
          for (const each of created) each(message);
        });
      }
      return async () => {
        set.delete(handler);
        if (set.size === 0 && handlers.get(channel) === set && !closed) {
          handlers.delete(channel);
          await subscriber.unsubscribe(channel).catch(() => undefined);
        }
      };
    },
    async isAlive(id) {
      if (id === replicaId) return true;
      return (await client.exists(key(`replica:${id}`))) === 1;
    },
    lead(name, onChange) {
      const leaderKey = key(`leader:${name}`);
      let leader = false;
      let stopped = false;
      const check = async () => {
        if (stopped) return;
        let now = leader;
        try {
          now = Number(await client.eval(LEAD, { keys: [leaderKey], arguments: [replicaId, String(options.leaderTtlMs ?? LEADER_TTL_MS)] })) === 1;
        } catch (error) {
          logger.warn('could not check a leadership in Redis', { name, error });
          // Without Redis, nobody can prove leadership: a holder gives it up rather than risk two.
          now = false;
        }
        if (now !== leader && !stopped) {
          leader = now;
          onChange(now);
        }
      };
      const timer = setInterval(() => void check(), options.leaderCheckMs ?? LEADER_CHECK_MS);
      timer.unref();
      void check();
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        clearInterval(timer);
        leaderships.delete(stop);
        if (leader) {
          // Told first, released after: the holder stops using it before anyone else may take it.
          leader = false;
          onChange(false);
          await client.eval(RELEASE_LOCK, { keys: [leaderKey], arguments: [replicaId] }).catch(() => undefined);
        }
      };
      leaderships.add(stop);
      const handle: Leadership = {
        get isLeader() {
          return leader;
        },
        stop,
      };
      return handle;
    },
    async takeToken(name, rule) {
      const args =
        rule.kind === 'bucket'
          ? ['bucket', String(rule.capacity), String(rule.perSecond), '']
          : ['window', String(rule.limit), String(rule.windowMs), `${replicaId}:${randomBytes(4).toString('hex')}`];
      return Number(await client.eval(TAKE_TOKEN, { keys: [key(`budget:${name}`)], arguments: args }));
    },
    async increment(name, initial) {
      const counter = key(`counter:${name}`);
      if (!(await client.exists(counter))) await client.set(counter, String(await initial()), { condition: 'NX' });
      const [value] = await client.multi().incr(counter).pExpire(counter, COUNTER_TTL_MS).exec();
      return Number(value);
    },
    slots,
    storeHealth: marker,
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      for (const stop of [...leaderships]) await stop();
      slots.stop();
      await client.del(key(`replica:${replicaId}`)).catch(() => undefined);
      await Promise.allSettled([subscriber.close(), client.close()]);
    },
  });
}

/** The replicas whose lease is alive (for `doctor`), read without joining as a replica. */
export async function liveReplicas(url: string): Promise<string[]> {
  const [client] = (await connectRedis(url)) as [RedisClient];
  try {
    const found: string[] = [];
    for await (const keys of client.scanIterator({ MATCH: `${PREFIX}replica:*`, COUNT: 200 })) {
      for (const key of keys) found.push(key.slice(`${PREFIX}replica:`.length));
    }
    return found.sort();
  } finally {
    await client.close();
  }
}
