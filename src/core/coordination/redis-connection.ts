/**
 * Connections to Redis, made one way for the store, the coordination and `doctor`: the first
 * connection fails at once (one sentence naming Redis, password hidden); once connected, a lost
 * connection is retried for ever; no offline queue, so while Redis is unreachable a call fails at
 * once (and the thread says so) instead of hanging.
 */
import { createClient } from '@redis/client';
import { StoreError } from '../errors.js';
import { redactStoreUrl } from '../store/external-backend.js';

/** A connected node-redis client. */
export type RedisClient = ReturnType<typeof createClient>;

/** Connects `count` clients to `url` (a second one serves pub/sub); `onError` hears every connection error. */
export async function connectRedis(url: string, options: { count?: number; onError?: (error: unknown) => void } = {}): Promise<RedisClient[]> {
  let connected = false;
  const reconnectStrategy = (retries: number): number | Error => (connected ? Math.min(2_000, 50 * 2 ** retries) : new Error('Redis does not answer'));
  const first: RedisClient = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 5_000, reconnectStrategy } });
  const clients = [first, ...Array.from({ length: (options.count ?? 1) - 1 }, () => first.duplicate())];
  // An error event without a listener would crash the process; the failing calls report it too.
  for (const client of clients) client.on('error', options.onError ?? (() => undefined));
  try {
    for (const client of clients) await client.connect();
    await first.ping();
    connected = true;
    return clients;
  } catch (error) {
    for (const client of clients)
      await Promise.resolve()
        .then(() => client.destroy())
        .catch(() => undefined);
    throw new StoreError(`Redis at ${redactStoreUrl(url)} does not answer: check TSUKA_STORE_URL and that the server runs.`, { cause: error });
  }
}
