/**
 * Maintenance of the SQLite store from a second connection, safe while TSUKA runs: a consistent
 * copy with `VACUUM INTO` (a plain file copy of a WAL database misses what is still in the -wal
 * file), and the size and row counts `doctor` shows. https://www.sqlite.org/lang_vacuum.html#vacuuminto
 */
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { StoreError } from '../errors.js';
import { SQLITE_STORE_FILE_NAME } from './open-store.js';
import { createPrivateFile } from './private-files.js';

const SQLITE_TABLE = 'keyv';

export interface SqliteStats {
  /** The database file plus its -wal file, in bytes. */
  bytes: number;
  /** Rows per namespace (`runs`, `run-events`, `sessions`…). */
  rows: Record<string, number>;
}

async function withConnection<T>(file: string, use: (adapter: KeyvSqlite) => Promise<T>): Promise<T> {
  if (!existsSync(file)) throw new StoreError(`There is no state database at ${file}: check TSUKA_DATA_DIR / TSUKA_STORE_URL.`);
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}`, table: SQLITE_TABLE, busyTimeout: 10_000 });
  // The adapter re-emits connection failures; the awaited query reports them instead.
  adapter.on('error', () => undefined);
  try {
    return await use(adapter);
  } finally {
    await adapter.disconnect().catch((error: unknown) => error);
  }
}

/** Writes a consistent copy of `source` to `target` (which must not exist) and checks it. */
export async function backupSqliteStore(source: string, target: string): Promise<{ bytes: number }> {
  const destination = path.resolve(target);
  if (existsSync(destination)) throw new StoreError(`${destination} already exists: choose a new file name (a backup never overwrites).`);
  if (!existsSync(path.dirname(destination))) throw new StoreError(`The folder ${path.dirname(destination)} does not exist: create it first.`);
  if (!existsSync(source)) throw new StoreError(`There is no state database at ${source}: check TSUKA_DATA_DIR / TSUKA_STORE_URL.`);
  // Created empty and 0600 first (VACUUM INTO fills an empty file): a backup holds every transcript.
  await createPrivateFile(destination, { exclusive: true }).catch((error: unknown) => {
    throw new StoreError(`The backup file ${destination} could not be created (${(error as NodeJS.ErrnoException).code ?? String(error)}).`, { cause: error });
  });
  try {
    await withConnection(source, async (adapter) => {
      try {
        await adapter.query('VACUUM INTO ?', destination);
      } catch (error) {
        throw new StoreError(`The backup of ${source} into ${destination} failed (${error instanceof Error ? error.message : String(error)}).`, {
          cause: error,
        });
      }
    });
  } catch (error) {
    // No empty or half-written backup is left behind to be mistaken for a good one.
    await rm(destination, { force: true });
    throw error;
  }
  await withConnection(destination, async (adapter) => {
    const result: unknown = await adapter.query('PRAGMA quick_check');
    const verdict = Array.isArray(result) ? Object.values((result[0] ?? {}) as object)[0] : undefined;
    if (verdict !== 'ok') throw new StoreError(`The backup ${destination} does not pass SQLite's integrity check (${String(verdict)}).`);
  });
  return { bytes: statSync(destination).size };
}

/** The size on disk and the rows per namespace. */
export async function sqliteStoreStats(file: string): Promise<SqliteStats> {
  const rows = await withConnection(file, async (adapter) => {
    const result: unknown = await adapter.query(
      `SELECT substr(key, 1, instr(key, ':') - 1) AS namespace, count(*) AS count FROM ${SQLITE_TABLE} GROUP BY namespace ORDER BY namespace`,
    );
    const counts: Record<string, number> = {};
    if (Array.isArray(result))
      for (const row of result as { namespace?: unknown; count?: unknown }[]) counts[String(row.namespace || '(none)')] = Number(row.count);
    return counts;
  });
  const size = (name: string) => (existsSync(name) ? statSync(name).size : 0);
  return { bytes: size(file) + size(`${file}-wal`), rows };
}

/** The SQLite file a store URL names (unset: the default file in the data folder); undefined for other backends. */
export function sqliteStorePath(storeUrl: string | undefined, dataDirectory: string): string | undefined {
  const url = storeUrl?.trim();
  if (!url) return path.join(path.resolve(dataDirectory), SQLITE_STORE_FILE_NAME);
  return url.startsWith('sqlite://') ? path.resolve(url.slice('sqlite://'.length)) : undefined;
}
