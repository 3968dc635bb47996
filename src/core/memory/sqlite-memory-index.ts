/**
 * The persisted memory index for the SQLite store, on its own connection to the same file. Triggers
 * on the store's table append every write or delete of a `memory:` key to a journal, in the same
 * transaction as the write — whoever makes it (this version, an older one, a raw edit) — so a
 * snapshot plus the journal after it is never silently stale. Snapshots are saved in the background;
 * the journal keeps what the oldest snapshot of each tag has not absorbed yet.
 */
import KeyvSqlite from '@keyv/sqlite';
import { silentLogger, type Logger } from '../logger.js';
import { createKeyedMutex } from '../store/keyed-mutex.js';
import { SQLITE_DEFAULT_BUSY_TIMEOUT_MS } from '../store/sqlite-backend.js';
import { sqliteStorePath } from '../store/sqlite-maintenance.js';
import type { MemoryFact } from './memory-fact.js';
import { type FactChange, type JournalChanges, MemoryIndexError, type PersistedMemoryIndex } from './persisted-memory-index.js';

/** The table `@keyv/sqlite` keeps the store in (`sqlite-backend.ts`); memory keys are `memory:<fact id>`. */
const KEYV_TABLE = 'keyv';
const MEMORY_KEY = "GLOB 'memory:*'";
/** `memory:` is 7 characters; the 6 after it are the scope tag that starts every fact id. */
const JOURNAL_ROW = (key: string): string => `INSERT INTO memory_index_journal (tag, key) VALUES (substr(${key}, 8, 6), ${key});`;

/**
 * Keeps what the oldest snapshot of the tag has absorbed out of the journal, whenever a snapshot is
 * written: as a trigger, saving a snapshot is one statement (no transaction held across calls).
 */
const OLDEST_SNAPSHOT = '(SELECT min(seq) FROM memory_index_snapshots WHERE tag = NEW.tag)';
// No upsert or OR REPLACE in here: the conflict handling of the statement that fires a trigger overrides the trigger's.
const PRUNE = `BEGIN
  UPDATE memory_index_pruned SET seq = max(seq, ${OLDEST_SNAPSHOT}) WHERE tag = NEW.tag;
  INSERT INTO memory_index_pruned (tag, seq) SELECT NEW.tag, ${OLDEST_SNAPSHOT} WHERE NOT EXISTS (SELECT 1 FROM memory_index_pruned WHERE tag = NEW.tag);
  DELETE FROM memory_index_journal WHERE tag = NEW.tag AND seq <= (SELECT seq FROM memory_index_pruned WHERE tag = NEW.tag);
END`;

/**
 * Each statement stands alone (and may be run again): a crash between two leaves nothing half done
 * that matters. The journal has no index but its positions: it is read after a recent position and
 * pruned at every snapshot, so few rows follow any position (and every write would update an index).
 */
const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS memory_index_journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, tag TEXT NOT NULL, key TEXT NOT NULL)',
  'CREATE TABLE IF NOT EXISTS memory_index_snapshots (scope TEXT PRIMARY KEY, tag TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL)',
  'CREATE TABLE IF NOT EXISTS memory_index_pruned (tag TEXT PRIMARY KEY, seq INTEGER NOT NULL)',
  `CREATE TRIGGER IF NOT EXISTS memory_index_v1_snapshot_insert AFTER INSERT ON memory_index_snapshots ${PRUNE}`,
  `CREATE TRIGGER IF NOT EXISTS memory_index_v1_snapshot_update AFTER UPDATE ON memory_index_snapshots ${PRUNE}`,
  `CREATE TRIGGER IF NOT EXISTS memory_index_v1_insert AFTER INSERT ON ${KEYV_TABLE} WHEN NEW.key ${MEMORY_KEY} BEGIN ${JOURNAL_ROW('NEW.key')} END`,
  `CREATE TRIGGER IF NOT EXISTS memory_index_v1_delete AFTER DELETE ON ${KEYV_TABLE} WHEN OLD.key ${MEMORY_KEY} BEGIN ${JOURNAL_ROW('OLD.key')} END`,
  // An upsert that hits an existing key is an update; a key that changes counts for both keys.
  `CREATE TRIGGER IF NOT EXISTS memory_index_v1_update AFTER UPDATE ON ${KEYV_TABLE} WHEN NEW.key ${MEMORY_KEY} OR OLD.key ${MEMORY_KEY} BEGIN
     INSERT INTO memory_index_journal (tag, key) SELECT substr(NEW.key, 8, 6), NEW.key WHERE NEW.key ${MEMORY_KEY};
     INSERT INTO memory_index_journal (tag, key) SELECT substr(OLD.key, 8, 6), OLD.key WHERE OLD.key <> NEW.key AND OLD.key ${MEMORY_KEY};
   END`,
];

const SCHEMA_OBJECTS = SCHEMA.map((statement) => /IF NOT EXISTS (\w+)/.exec(statement)![1]!);
/** One query instead of the schema's statements when a process opens a database that has them all. */
const SCHEMA_PRESENT = `SELECT count(*) AS count FROM sqlite_master WHERE name IN (${SCHEMA_OBJECTS.map((name) => `'${name}'`).join(', ')})`;

/** Each key of the tag changed after `seq`, with its stored value now (max(seq) keeps the latest change). */
const CHANGED_AFTER = (request: string, seq: string): string => `SELECT ${request} AS request, 'change' AS kind, changed.seq, changed.key, store.value
  FROM (SELECT key, max(seq) AS seq FROM memory_index_journal WHERE tag = ? AND seq > ${seq} GROUP BY key) AS changed
  LEFT JOIN ${KEYV_TABLE} AS store ON store.key = changed.key`;

/** For request `n`: its tag's pruned position and its changes after `?` (all requests in one statement, one consistent read). */
const CHANGES_FOR = (request: number): string =>
  `SELECT ${request} AS request, 'pruned' AS kind, seq, NULL AS key, NULL AS value FROM memory_index_pruned WHERE tag = ?
  UNION ALL ${CHANGED_AFTER(String(request), '?')}`;

/** The journal head, the scope's snapshot, the tag's pruned position and the changes after the snapshot, read together. */
const OPEN = `SELECT 0 AS request, 'head' AS kind, seq, NULL AS key, NULL AS value FROM sqlite_sequence WHERE name = 'memory_index_journal'
  UNION ALL SELECT 0, 'snapshot', seq, NULL, data FROM memory_index_snapshots WHERE scope = ?
  UNION ALL SELECT 0, 'pruned', seq, NULL, NULL FROM memory_index_pruned WHERE tag = ?
  UNION ALL ${CHANGED_AFTER('0', '(SELECT seq FROM memory_index_snapshots WHERE scope = ?)')}`;

const SAVE_SNAPSHOT = `INSERT INTO memory_index_snapshots (scope, tag, seq, data) VALUES (?, ?, ?, ?) ON CONFLICT (scope)
  DO UPDATE SET tag = excluded.tag, seq = excluded.seq, data = excluded.data WHERE excluded.seq >= memory_index_snapshots.seq`;

interface Row {
  request: number;
  kind: 'head' | 'snapshot' | 'pruned' | 'change';
  seq: number;
  key: string | null;
  value: string | Uint8Array | null;
}

/** The fact a stored keyv value holds (keyv keeps `{ value, expires }` as JSON), if live and whole. */
function storedFact(id: string, raw: Row['value'], now: number): MemoryFact | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const envelope = JSON.parse(raw) as { value?: unknown; expires?: unknown };
    if (typeof envelope.expires === 'number' && envelope.expires < now) return undefined;
    const fact = envelope.value as Partial<MemoryFact> | null | undefined;
    const whole = typeof fact === 'object' && fact !== null && fact.id === id && typeof fact.content === 'string' && typeof fact.scope === 'string';
    return whole ? (fact as MemoryFact) : undefined;
  } catch {
    // Unreadable as a fact: the index leaves it out, as a full read would not find it either.
    return undefined;
  }
}

function toChanges(rows: Row[], after: number): JournalChanges {
  const now = Date.now();
  const result: JournalChanges = { seq: after, changes: [], prunedThrough: 0 };
  for (const row of rows) {
    if (row.kind === 'pruned') result.prunedThrough = row.seq;
    if (row.kind !== 'change') continue;
    const id = (row.key ?? '').slice('memory:'.length);
    const change: FactChange = { id, fact: storedFact(id, row.value, now) };
    result.changes.push(change);
    result.seq = Math.max(result.seq, row.seq);
  }
  return result;
}

/** Creates the index over the SQLite file at `path` (the store's database); it connects at first use. */
export function createSqliteMemoryIndex(path: string, options: { busyTimeoutMs?: number; logger?: Logger } = {}): PersistedMemoryIndex {
  const logger = options.logger ?? silentLogger;
  // One statement at a time on the connection (each is its own transaction), and `close` after the last.
  const serial = createKeyedMutex();
  let connection: Promise<KeyvSqlite> | undefined;
  const queued = new Map<string, { tag: string; make: () => { seq: number; data: Uint8Array } }>();
  let saving: Promise<void> | undefined;
  let closing = false;
  let closed = false;
  /** Ends the wait before the first snapshot is made: `close` does not wait for a timer. */
  let wake: (() => void) | undefined;

  async function openConnection(): Promise<KeyvSqlite> {
    const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, table: KEYV_TABLE, busyTimeout: options.busyTimeoutMs ?? SQLITE_DEFAULT_BUSY_TIMEOUT_MS });
    // The adapter re-emits its connection failure; the awaited queries below report it instead.
    adapter.on('error', () => undefined);
    try {
      // No transaction around them: one held across calls could wait on the store's own connection in this process.
      // As the store's own connection: WAL is the file's mode already; commits need not wait for the disk.
      await adapter.query('PRAGMA synchronous=NORMAL');
      const present = (await adapter.query(SCHEMA_PRESENT)) as { count: number }[];
      if (present[0]?.count !== SCHEMA_OBJECTS.length) for (const statement of SCHEMA) await adapter.query(statement);
      return adapter;
    } catch (error) {
      await adapter.disconnect().catch((closeError: unknown) => closeError);
      throw new MemoryIndexError(`Could not prepare the memory index in ${path}.`, { cause: error });
    }
  }

  function query<T>(what: string, sql: string, ...parameters: unknown[]): Promise<T> {
    return serial.run('db', async () => {
      if (closed) throw new MemoryIndexError(`The memory index of ${path} is closed.`);
      connection ??= openConnection().catch((error: unknown) => {
        connection = undefined;
        throw error;
      });
      const db = await connection;
      try {
        return (await db.query(sql, ...parameters)) as T;
      } catch (error) {
        throw new MemoryIndexError(`Could not ${what} in the memory index of ${path}.`, { cause: error });
      }
    });
  }

  async function drain(): Promise<void> {
    try {
      // Made after the task that asked for it has answered (a snapshot of a large scope takes a while).
      if (!closing) await new Promise<void>((resolve) => setImmediate((wake = resolve)));
      for (let next = queued.entries().next(); !next.done; next = queued.entries().next()) {
        const [scope, job] = next.value;
        queued.delete(scope);
        try {
          const { seq, data } = job.make();
          await query('save a snapshot', SAVE_SNAPSHOT, scope, job.tag, seq, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
        } catch (error) {
          logger.warn('memory index: a scope snapshot was not saved', { scope, error });
        }
      }
    } finally {
      wake = undefined;
      saving = undefined;
    }
  }

  return {
    location: path,
    async open(scope, tag) {
      const rows = await query<Row[]>('open a scope', OPEN, scope, tag, tag, scope);
      const head = rows.find((row) => row.kind === 'head')?.seq ?? 0;
      const pruned = rows.find((row) => row.kind === 'pruned')?.seq ?? 0;
      const snapshot = rows.find((row) => row.kind === 'snapshot');
      if (pruned > head || (snapshot && snapshot.seq > head)) {
        // Positions past the journal's head: the journal was rebuilt. What refers to the old positions goes.
        await query('repair the journal positions', 'UPDATE memory_index_pruned SET seq = ? WHERE tag = ? AND seq > ?', head, tag, head);
        await query('repair the journal positions', 'DELETE FROM memory_index_snapshots WHERE tag = ? AND seq > ?', tag, head);
        return { head };
      }
      // A snapshot older than what the journal dropped for its tag cannot be brought up to date.
      if (!snapshot || !(snapshot.value instanceof Uint8Array) || snapshot.seq < pruned) return { head };
      return { head, snapshot: { data: snapshot.value, ...toChanges(rows, snapshot.seq) } };
    },
    async changesSince(requests) {
      if (requests.length === 0) return [];
      const sql = requests.map((_, request) => CHANGES_FOR(request)).join('\n  UNION ALL ');
      const rows = await query<Row[]>('read the journal', sql, ...requests.flatMap(({ tag, seq }) => [tag, tag, seq]));
      return requests.map(({ seq }, request) =>
        toChanges(
          rows.filter((row) => row.request === request),
          seq,
        ),
      );
    },
    async readFacts(ids) {
      const rows = await query<{ key: string; value: string }[]>(
        'read facts',
        `SELECT key, value FROM ${KEYV_TABLE} WHERE key IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ids.map((id) => `memory:${id}`)),
      );
      const now = Date.now();
      const found = new Map<string, MemoryFact>();
      for (const row of rows) {
        const id = row.key.slice('memory:'.length);
        const fact = storedFact(id, row.value, now);
        if (fact) found.set(id, fact);
      }
      return found;
    },
    async dropSnapshots(scopes) {
      if (scopes.length === 0) return;
      for (const scope of scopes) queued.delete(scope);
      await query('drop snapshots', 'DELETE FROM memory_index_snapshots WHERE scope IN (SELECT value FROM json_each(?))', JSON.stringify(scopes));
    },
    saveSnapshot(scope, tag, make) {
      if (closing) return;
      queued.set(scope, { tag, make });
      saving ??= drain();
    },
    async close() {
      closing = true;
      wake?.();
      while (saving) await saving;
      closed = true;
      const opened = connection;
      connection = undefined;
      if (opened) await serial.run('db', async () => (await opened.catch(() => undefined))?.disconnect());
    },
  };
}

/** The index for the store a URL names when it is a SQLite file (unset: the default file); else undefined. */
export function openMemoryIndexFor(
  storeUrl: string | undefined,
  dataDirectory: string,
  options: { busyTimeoutMs?: number; logger?: Logger } = {},
): PersistedMemoryIndex | undefined {
  const path = sqliteStorePath(storeUrl, dataDirectory);
  return path ? createSqliteMemoryIndex(path, options) : undefined;
}
