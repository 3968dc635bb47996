/**
 * Whether the shared Redis still holds what it held (issue 41). Every replica keeps one marker key,
 * `tsuka:store-marker`, written (set-if-absent) the first time a replica meets that Redis, and
 * remembers the value it saw. When a later look — every heartbeat, and at once whenever the
 * connection comes back — finds the marker gone or another one in its place, that Redis came back
 * empty (restarted without persistence, flushed): said in the log and `/readyz` in those words,
 * never silently taken for a fresh install, and the listeners (pending approvals) are told.
 * Also: whether a Redis keeps anything across its own restart (`CONFIG GET appendonly` / `save`).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger.js';
import { connectRedis, type RedisClient } from './redis-connection.js';

export const STORE_MARKER_KEY = 'tsuka:store-marker';

/** The shared store's own health, as the replicas see it (Redis only). */
export interface StoreHealth {
  /** When this replica found the Redis come back empty (the last time), else undefined. */
  emptiedAt(): number | undefined;
  /** The sentence for `/readyz` and the log, once it came back empty. */
  describe(): string | undefined;
  /** Called each time this replica finds the Redis came back empty; returns the unsubscribe. */
  onEmptied(listener: () => void): () => void;
  /** Whether that Redis keeps its data across its own restart. */
  persistence(): Promise<RedisPersistence>;
}

export interface StoreMarker extends StoreHealth {
  /** Looks at the marker now (serialised with any look under way); never throws. */
  check(): Promise<void>;
}

/** The words the log and `/readyz` use (the interface). */
export const cameBackEmpty = (at: number) =>
  `Redis came back empty at ${new Date(at).toISOString()}: what it held (pending approvals, runs, sessions, memory, the audit log) is lost; pending approvals were denied`;

export function createStoreMarker(options: { client: RedisClient; logger: Logger; location: string }): StoreMarker {
  const { client, logger } = options;
  const listeners = new Set<() => void>();
  let seen: string | undefined;
  let emptied: number | undefined;
  let running: Promise<void> = Promise.resolve();

  /** Writes a marker if there is none and returns the one Redis holds. */
  async function adopt(): Promise<string | undefined> {
    await client.set(STORE_MARKER_KEY, `${randomBytes(8).toString('hex')} ${new Date().toISOString()}`, { condition: 'NX' });
    return (await client.get(STORE_MARKER_KEY)) ?? undefined;
  }

  async function look(): Promise<void> {
    const current = (await client.get(STORE_MARKER_KEY)) ?? undefined;
    if (seen === undefined) {
      if (current === undefined) {
        logger.info('no store marker on this Redis: taken for a new install (or one that lost everything before this replica started); marker written', {
          location: options.location,
        });
      }
      seen = current ?? (await adopt());
      return;
    }
    if (current === seen) return;
    emptied = Date.now();
    logger.error(cameBackEmpty(emptied), { location: options.location, marker: current === undefined ? 'gone' : 'replaced' });
    seen = current ?? (await adopt());
    for (const listener of [...listeners]) listener();
  }

  return {
    check() {
      running = running.then(look).catch((error: unknown) => logger.warn('could not look at the store marker in Redis', { error }));
      return running;
    },
    emptiedAt: () => emptied,
    describe: () => (emptied === undefined ? undefined : cameBackEmpty(emptied)),
    onEmptied(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    persistence: () => redisPersistence(client),
  };
}

/** How a Redis keeps its data across its own restart. */
export type RedisPersistence = { kind: 'aof' | 'rdb' | 'aof+rdb' | 'none' } | { kind: 'unknown'; why: string };

/** Reads `CONFIG GET appendonly` and `save` (a managed Redis may refuse CONFIG: then unknown). */
export async function redisPersistence(client: RedisClient): Promise<RedisPersistence> {
  try {
    const appendonly = (await client.configGet('appendonly')).appendonly ?? '';
    const save = (await client.configGet('save')).save ?? '';
    const aof = appendonly.toLowerCase() === 'yes';
    const rdb = save.trim() !== '';
    return { kind: aof && rdb ? 'aof+rdb' : aof ? 'aof' : rdb ? 'rdb' : 'none' };
  } catch (error) {
    return { kind: 'unknown', why: error instanceof Error ? error.message : String(error) };
  }
}

/** One sentence for the start and `doctor`; `warn` when that Redis keeps nothing across a restart. */
export function describePersistence(persistence: RedisPersistence): { warn: boolean; text: string } {
  switch (persistence.kind) {
    case 'none':
      return {
        warn: true,
        text: 'this Redis keeps nothing across its own restart (appendonly no, save off): a Redis restart loses pending approvals, runs, sessions, memory and the audit log — turn on appendonly yes (or RDB snapshots)',
      };
    case 'unknown':
      return { warn: false, text: `could not tell whether this Redis keeps its data across a restart (CONFIG GET refused: ${persistence.why})` };
    default:
      return {
        warn: false,
        text: `this Redis keeps its data across its own restart (${persistence.kind === 'aof+rdb' ? 'AOF and RDB' : persistence.kind.toUpperCase()})`,
      };
  }
}

/** `describePersistence` of the Redis at `url`, read on a connection of its own (for `doctor`). */
export async function redisPersistenceAt(url: string): Promise<{ warn: boolean; text: string }> {
  const [client] = (await connectRedis(url)) as [RedisClient];
  try {
    return describePersistence(await redisPersistence(client));
  } finally {
    await client.close();
  }
}
