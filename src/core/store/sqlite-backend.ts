/**
 * The default backend: one SQLite file through `@keyv/sqlite`, in WAL mode. Opening checks the file
 * for real (the adapter connects and creates its table lazily), so a damaged or locked database fails
 * at start with one error naming the path — it is never reset or recreated.
 */
import KeyvSqlite from '@keyv/sqlite';
import { StoreError } from '../errors.js';
import { prefixUpperBound, type StoreBackend } from './store-backend.js';

const SQLITE_TABLE = 'keyv';
const SCAN_PAGE_SIZE = 2_000;
/** How long a statement waits for another process's write lock before failing. */
export const SQLITE_DEFAULT_BUSY_TIMEOUT_MS = 5_000;

interface Row {
  key: string;
  value: string;
}

function isRowList(value: unknown): value is Row[] {
  return (
    Array.isArray(value) &&
    value.every(
      (row: unknown) =>
        typeof row === 'object' && row !== null && typeof (row as { key?: unknown }).key === 'string' && typeof (row as { value?: unknown }).value === 'string',
    )
  );
}

function sqliteCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return 'UNKNOWN';
}

/** Turns a SQLite failure at open into one sentence that names the file and says what to do. */
export function describeSqliteOpenFailure(path: string, error: unknown): StoreError {
  const code = sqliteCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  let message: string;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    message =
      `The state database ${path} is damaged or is not a SQLite file (${detail}). ` +
      'TSUKA will not reset it: restore a backup, or move the file aside to start with empty state.';
  } else if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    message =
      `The state database ${path} is locked by another process (${detail}). ` +
      'Stop the other TSUKA process using it, or point TSUKA_DATA_DIR / TSUKA_STORE_URL elsewhere.';
  } else if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM') {
    message = `The state database ${path} cannot be opened for writing (${detail}). Check that the folder exists and that this user may write to it.`;
  } else {
    message = `The state database ${path} could not be opened (${detail}).`;
  }
  return new StoreError(message, { cause: error });
}

/** Opens (creating if missing) and checks the SQLite file at `path`. Throws `StoreError` naming it. */
export async function openSqliteBackend(path: string, options: { busyTimeoutMs?: number } = {}): Promise<StoreBackend> {
  const adapter = new KeyvSqlite({
    uri: `sqlite://${path}`,
    table: SQLITE_TABLE,
    busyTimeout: options.busyTimeoutMs ?? SQLITE_DEFAULT_BUSY_TIMEOUT_MS,
  });
  // The adapter re-emits its connection failure; the awaited queries below report it instead.
  adapter.on('error', () => undefined);
  try {
    // WAL lets readers run beside the writer; NORMAL sync keeps every commit across a process crash.
    await adapter.query('PRAGMA journal_mode=WAL');
    await adapter.query('PRAGMA synchronous=NORMAL');
    const integrity: unknown = await adapter.query('PRAGMA quick_check');
    const verdict = Array.isArray(integrity) ? Object.values((integrity[0] ?? {}) as object)[0] : undefined;
    if (verdict !== 'ok') {
      throw Object.assign(new Error(`integrity check failed: ${String(verdict)}`), { code: 'SQLITE_CORRUPT' });
    }
    // Proves we can take the write lock now rather than failing at the first write.
    await adapter.query('BEGIN IMMEDIATE');
    await adapter.query('ROLLBACK');
  } catch (error) {
    // Closing can fail the same way opening did; the open failure is the one worth reporting.
    await adapter.disconnect().catch((closeError: unknown) => closeError);
    throw describeSqliteOpenFailure(path, error);
  }

  return {
    location: path,
    adapter,
    async *scan(prefix) {
      const upper = prefixUpperBound(prefix);
      let after = prefix;
      let inclusive = true;
      for (;;) {
        const rows: unknown = await adapter.query(
          `SELECT key, value FROM ${SQLITE_TABLE} WHERE key ${inclusive ? '>=' : '>'} ? AND key < ? ORDER BY key LIMIT ?`,
          after,
          upper,
          SCAN_PAGE_SIZE,
        );
        if (!isRowList(rows)) throw new StoreError(`Unexpected rows from the state database ${path}.`);
        for (const row of rows) yield [row.key, row.value] as [string, string];
        const last = rows[rows.length - 1];
        if (rows.length < SCAN_PAGE_SIZE || !last) return;
        after = last.key;
        inclusive = false;
      }
    },
    async close() {
      await adapter.disconnect();
    },
  };
}
