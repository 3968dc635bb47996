/**
 * One typed namespace of the store: a keyv instance over the shared backend, plus ordered prefix
 * listing and a serialized read-modify-write (`update`). Every write to a key goes through the same
 * per-key queue, so `set`, `delete` and `update` on one key apply in call order and none is lost
 * (across replicas too when the store's mutex is the Redis coordination's).
 */
import Keyv from 'keyv';
import { StoreError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createKeyedMutex, type KeyedMutex } from './keyed-mutex.js';
import type { StoreBackend } from './store-backend.js';

/** A typed key-value namespace. Values must be JSON data (they are stored as JSON). */
export interface KeyValueNamespace<T> {
  readonly name: string;
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  has(key: string): Promise<boolean>;
  /** Live entries whose key starts with `prefix` (all when omitted), ordered by key. */
  entries(prefix?: string): AsyncIterable<[string, T]>;
  /**
   * Reads, applies `fn` and writes, serialized per key (by the store's mutex). Returning the very
   * `current` object (same reference) skips the write. Resolves to the value now stored.
   */
  update(key: string, fn: (current: T | undefined) => T, options?: { ttlMs?: number }): Promise<T>;
  /** Deletes expired entries (backends such as SQLite keep them until read); returns how many. */
  purgeExpired(): Promise<number>;
}

interface StoredEnvelope {
  value: unknown;
  expires?: number | null;
}

const ENTRIES_BATCH = 500;

function parseEnvelope(raw: string): StoredEnvelope | undefined {
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null || !('value' in parsed)) return undefined;
  return parsed as StoredEnvelope;
}

/** Creates the namespace `name` over `backend`; the store caches one per name. */
export function createKeyValueNamespace<T>(name: string, backend: StoreBackend, options: { logger: Logger; mutex?: KeyedMutex }): KeyValueNamespace<T> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new StoreError(`Invalid store namespace "${name}": use a-z, 0-9 and -.`);
  const keyv = new Keyv<T>({
    store: backend.adapter,
    namespace: name,
    serialize: JSON.stringify,
    deserialize: JSON.parse,
    throwOnErrors: true,
  });
  keyv.on('error', (error: unknown) => options.logger.warn('store backend error', { namespace: name, error }));
  // Shared by every namespace of a store (keys are qualified by the namespace), and across replicas on Redis.
  const shared = options.mutex ?? createKeyedMutex();
  const mutex: KeyedMutex = { run: (key, task) => shared.run(`${name}:${key}`, task) };

  const fail = (action: string, key: string, error: unknown): StoreError =>
    error instanceof StoreError ? error : new StoreError(`Could not ${action} "${key}" in the ${name} state at ${backend.location}.`, { cause: error });

  const read = async (key: string): Promise<T | undefined> => {
    try {
      return await keyv.get(key);
    } catch (error) {
      throw fail('read', key, error);
    }
  };
  const write = async (key: string, value: T, ttlMs?: number): Promise<void> => {
    try {
      await keyv.set(key, value, ttlMs);
    } catch (error) {
      throw fail('write', key, error);
    }
  };

  async function* entries(prefix = ''): AsyncIterable<[string, T]> {
    const time = Date.now();
    const found: [string, T][] = [];
    try {
      for await (const [fullKey, raw] of backend.scan(`${name}:${prefix}`)) {
        const envelope = parseEnvelope(raw);
        if (!envelope) continue;
        if (typeof envelope.expires === 'number' && envelope.expires < time) continue;
        found.push([fullKey.slice(name.length + 1), envelope.value as T]);
        if (found.length >= ENTRIES_BATCH) yield* found.splice(0);
      }
    } catch (error) {
      throw fail('list', `${prefix}*`, error);
    }
    yield* found;
  }

  return {
    name,
    get: read,
    set: (key, value, ttlMs) => mutex.run(key, () => write(key, value, ttlMs)),
    delete: (key) =>
      mutex.run(key, async () => {
        try {
          return await keyv.delete(key);
        } catch (error) {
          throw fail('delete', key, error);
        }
      }),
    has: async (key) => (await read(key)) !== undefined,
    entries,
    update: (key, fn, updateOptions) =>
      mutex.run(key, async () => {
        const current = await read(key);
        const next = fn(current);
        if (next !== current || current === undefined) await write(key, next, updateOptions?.ttlMs);
        return next;
      }),
    async purgeExpired() {
      const time = Date.now();
      const expired: string[] = [];
      try {
        for await (const [fullKey, raw] of backend.scan(`${name}:`)) {
          const envelope = parseEnvelope(raw);
          if (envelope && typeof envelope.expires === 'number' && envelope.expires < time) {
            expired.push(fullKey.slice(name.length + 1));
          }
        }
      } catch (error) {
        throw fail('list', '*', error);
      }
      // keyv deletes an expired entry when it reads it; reading under the key's lock never removes a fresh write.
      for (const key of expired) await mutex.run(key, () => read(key));
      return expired.length;
    },
  };
}
