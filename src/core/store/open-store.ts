/**
 * The state store: keyv namespaces over one backend. SQLite at `<data dir>/tsuka.sqlite` by
 * default; `memory://` for tests; any other keyv URL (Redis, Postgres, …) when several replicas
 * must share state (see `external-backend.ts` for what that does and does not guarantee).
 */
import { dirname, join, resolve } from 'node:path';
import { StoreError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { openExternalBackend } from './external-backend.js';
import { createKeyValueNamespace, type KeyValueNamespace } from './key-value-namespace.js';
import { openSqliteBackend } from './sqlite-backend.js';
import { createPrivateFile, makePrivateFolder, tightenFile } from './private-files.js';
import { createKeyedMutex, type KeyedMutex } from './keyed-mutex.js';
import { createMemoryBackend, type StoreBackend } from './store-backend.js';

/** The file name of the default SQLite database inside the data folder. */
export const SQLITE_STORE_FILE_NAME = 'tsuka.sqlite';

/** The opened state store. `namespace(name)` returns the same instance for the same name. */
export interface Store {
  namespace<T>(name: string): KeyValueNamespace<T>;
  close(): Promise<void>;
  /** The database file, `memory`, or the store URL without its password. */
  readonly location: string;
}

export interface OpenStoreOptions {
  /** `TSUKA_STORE_URL`; undefined means `sqlite://<dataDirectory>/tsuka.sqlite`. */
  url?: string;
  /** `TSUKA_DATA_DIR`. */
  dataDirectory: string;
  logger?: Logger;
  /** How long SQLite waits for another process's lock before giving up (default 5 s). */
  busyTimeoutMs?: number;
  /** Serializes writes per key: the coordination's mutex (across replicas on Redis); in-process by default. */
  mutex?: KeyedMutex;
}

async function openBackend(options: OpenStoreOptions): Promise<StoreBackend> {
  const url = options.url?.trim() || `sqlite://${join(resolve(options.dataDirectory), SQLITE_STORE_FILE_NAME)}`;
  if (url === 'memory' || url === 'memory://') return createMemoryBackend();
  if (url.startsWith('sqlite://')) {
    const path = resolve(url.slice('sqlite://'.length));
    try {
      await makePrivateFolder(dirname(path));
      // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database's mode.
      await createPrivateFile(path);
    } catch (error) {
      throw new StoreError(`Cannot create the state database ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}): check TSUKA_DATA_DIR.`, {
        cause: error,
      });
    }
    await tightenDatabaseFiles(path, options.logger ?? silentLogger);
    return openSqliteBackend(path, { busyTimeoutMs: options.busyTimeoutMs });
  }
  // Loaded only when named: a SQLite install never loads the Redis client.
  if (/^rediss?:\/\//i.test(url)) return (await import('./redis-backend.js')).openRedisBackend(url);
  return openExternalBackend(url);
}

/** A database an older version created world-readable (also outside the data folder, `sqlite://…`) is made 0600. */
async function tightenDatabaseFiles(path: string, logger: Logger): Promise<void> {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const tightened = await tightenFile(file).catch((error: unknown) => {
      logger.warn('could not make a state database file private', { file, error });
      return false;
    });
    if (tightened) logger.warn('the state database file was readable by other users: it is now 0600', { file });
  }
}

/** Opens the store and checks it works; a damaged or locked database throws `StoreError` naming it. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const logger = options.logger ?? silentLogger;
  const backend = await openBackend(options);
  const namespaces = new Map<string, KeyValueNamespace<unknown>>();
  const mutex = options.mutex ?? createKeyedMutex();
  // Each namespace's keyv listens for errors on the one shared adapter: more than Node's default 10.
  const adapter = backend.adapter as { setMaxListeners?: (count: number) => unknown };
  adapter.setMaxListeners?.(0);
  let closed = false;
  logger.debug('state store opened', { location: backend.location });
  return {
    location: backend.location,
    namespace<T>(name: string): KeyValueNamespace<T> {
      if (closed) throw new StoreError(`The state store ${backend.location} is closed.`);
      let namespace = namespaces.get(name);
      if (!namespace) {
        namespace = createKeyValueNamespace<unknown>(name, backend, { logger, mutex });
        namespaces.set(name, namespace);
      }
      return namespace as KeyValueNamespace<T>;
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await backend.close();
      } catch (error) {
        throw new StoreError(`Could not close the state store ${backend.location} cleanly.`, { cause: error });
      }
    },
  };
}
