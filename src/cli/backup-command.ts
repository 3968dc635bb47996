/**
 * `tsuka backup FILE`: a consistent copy of the SQLite store, safe while `tsuka start` runs (it
 * takes no lock and changes nothing). Restore: stop TSUKA and put the copy in place of the store.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { backupSqliteStore, sqliteStorePath } from '../core/store/sqlite-maintenance.js';
import { formatBytes } from './format-bytes.js';

export async function runBackup(args: string[], config: AppConfig, io: CliIo): Promise<number> {
  const [target] = args.filter((arg) => !arg.startsWith('--'));
  if (!target) {
    io.stderr('Usage: tsuka backup FILE   (e.g. tsuka backup backups/tsuka-2026-12-03.sqlite)\n');
    return 2;
  }
  const source = sqliteStorePath(config.storeUrl, config.dataDirectory);
  if (!source) {
    io.stderr('tsuka backup copies the SQLite store; TSUKA_STORE_URL names another backend: back it up with its own tools.\n');
    return 2;
  }
  const destination = path.resolve(io.workingDirectory, target);
  // `tsuka backup backups/x.sqlite` on a fresh clone: the folder is made (private, like the data folder).
  await mkdir(path.dirname(destination), { recursive: true, mode: 0o700 });
  const { bytes } = await backupSqliteStore(source, destination);
  io.stdout(
    `Backup of ${source} written to ${destination} (${formatBytes(bytes)}).\nRestore: stop TSUKA, then copy it to ${source} (and delete ${path.basename(source)}-wal and -shm beside it).\n`,
  );
  return 0;
}
