/**
 * The store on Redis (`TSUKA_STORE_URL=redis://…` or `rediss://…`), for several replicas: values
 * through `@keyv/redis` under `tsuka:kv:<namespace>:<key>`, and one sorted set of the keys
 * (`tsuka:kv-index`, compared as bytes) so that a prefix listing reads only its range instead of
 * scanning the whole keyspace. Entries Redis expired leave their index entry behind; listings and
 * the hourly purge drop those.
 */
import { EventEmitter } from 'node:events';
import KeyvRedis from '@keyv/redis';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import { StoreError } from '../errors.js';
import { connectRedis, type RedisClient } from '../coordination/redis-connection.js';
import { redactStoreUrl } from './external-backend.js';
import { prefixUpperBound, type StoreBackend } from './store-backend.js';

const VALUE_PREFIX = 'tsuka:kv:';
const INDEX = 'tsuka:kv-index';
const PAGE = 500;

/** Opens a Redis connection for the store and checks it answers. */
export async function openRedisBackend(url: string): Promise<StoreBackend> {
  const location = redactStoreUrl(url);
  const [client] = (await connectRedis(url)) as [RedisClient];
  const values = new KeyvRedis(client, { throwOnErrors: true });
  values.on('error', () => undefined);

  /** keyv's adapter: the namespace stays keyv's own key prefix (`runs:…`), shared by every namespace. */
  class IndexedRedisAdapter extends EventEmitter implements KeyvStoreAdapter {
    opts = {};
    namespace?: string;
    async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
      return values.get<Value>(VALUE_PREFIX + key);
    }
    async set(key: string, value: unknown, ttl?: number): Promise<boolean> {
      // One transaction: a listing never sees the index entry without its value (and drops it).
      const stored = typeof value === 'string' ? value : JSON.stringify(value);
      await client
        .multi()
        .zAdd(INDEX, { score: 0, value: key })
        .set(VALUE_PREFIX + key, stored, ttl ? { expiration: { type: 'PX', value: Math.max(1, Math.round(ttl)) } } : {})
        .exec();
      return true;
    }
    async delete(key: string): Promise<boolean> {
      const removed = await values.delete(VALUE_PREFIX + key);
      await client.zRem(INDEX, key);
      return removed;
    }
    async clear(): Promise<void> {
      throw new StoreError('Clearing the whole Redis store is not supported; delete keys one by one.');
    }
    async has(key: string): Promise<boolean> {
      return values.has(VALUE_PREFIX + key);
    }
  }

  return {
    location,
    adapter: new IndexedRedisAdapter(),
    async *scan(prefix) {
      const upper = prefixUpperBound(prefix);
      let from = `[${prefix}`;
      for (;;) {
        const keys = await client.zRangeByLex(INDEX, from, `(${upper}`, { LIMIT: { offset: 0, count: PAGE } });
        if (keys.length === 0) return;
        const raw = await client.mGet(keys.map((key) => VALUE_PREFIX + key));
        const gone: string[] = [];
        for (let index = 0; index < keys.length; index++) {
          const value = raw[index];
          if (typeof value === 'string') yield [keys[index]!, value] as [string, string];
          else gone.push(keys[index]!);
        }
        if (gone.length > 0) await client.zRem(INDEX, gone);
        if (keys.length < PAGE) return;
        from = `(${keys[keys.length - 1]}`;
      }
    },
    async close() {
      await client.close();
    },
  };
}
