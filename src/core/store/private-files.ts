/**
 * The data folder and every file the bot keeps (the database and its -wal/-shm, the lock, key and
 * fingerprint files, backups) are private to the bot's user whatever the umask: folders 0700, files
 * 0600 (issue 29; under the usual umask 022 they were created world-readable). Files are created
 * with their mode rather than tightened afterwards, so they are never readable by others, not even
 * for a moment; what an older version left open is tightened at start, with a log line.
 */
import { mkdirSync } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger.js';

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The permission bits of group and others. */
const SHARED_BITS = 0o077;
/** How many tightened paths a log line names (the count says the rest). */
const LOGGED_PATHS = 10;

/** Creates `folder` and its missing parents as 0700 (an existing folder is left as it is). */
export function makePrivateFolderSync(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/** `makePrivateFolderSync`, without blocking. */
export async function makePrivateFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
}

/** Writes `content` to a new or existing file that is 0600 from its creation on. */
export async function writePrivateFile(file: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(file, 'w', PRIVATE_FILE_MODE);
  try {
    // An existing file keeps its mode on open: tightened before anything is written into it.
    await handle.chmod(PRIVATE_FILE_MODE);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/**
 * Creates `file` empty and 0600 when it does not exist (so SQLite, which gives a database's
 * -wal and -shm the mode of the database, makes those private too). `exclusive`: an existing file
 * is an error (`EEXIST`) instead of being kept.
 */
export async function createPrivateFile(file: string, options: { exclusive?: boolean } = {}): Promise<void> {
  try {
    await (await open(file, 'wx', PRIVATE_FILE_MODE)).close();
  } catch (error) {
    if (options.exclusive || (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Makes `file` 0600 when group or others have any access; true when it did. Missing files and links are left alone. */
export async function tightenFile(file: string): Promise<boolean> {
  const stats = await lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!stats?.isFile() || (stats.mode & SHARED_BITS) === 0) return false;
  await chmod(file, PRIVATE_FILE_MODE);
  return true;
}

/** Every folder (0700) and file (0600) under `folder` that others could read, made private; symbolic links are not followed. */
async function tightenTree(folder: string, tightened: string[]): Promise<void> {
  const stats = await lstat(folder);
  if (!stats.isDirectory()) return;
  if ((stats.mode & SHARED_BITS) !== 0) {
    await chmod(folder, PRIVATE_FOLDER_MODE);
    tightened.push(folder);
  }
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const child = path.join(folder, entry.name);
    if (entry.isDirectory()) await tightenTree(child, tightened);
    else if (entry.isFile() && (await tightenFile(child))) tightened.push(child);
  }
}

/**
 * The data folder at start: created 0700 when missing; when it exists, it and everything in it that
 * group or others could read is made private, and a warning names what was tightened.
 */
export async function securePrivateFolder(folder: string, logger: Logger): Promise<string[]> {
  await makePrivateFolder(folder);
  const tightened: string[] = [];
  await tightenTree(folder, tightened);
  if (tightened.length > 0) {
    logger.warn('the data folder was readable by other users: its modes were tightened (folders 0700, files 0600)', {
      folder,
      count: tightened.length,
      paths: tightened.slice(0, LOGGED_PATHS).map((entry) => path.relative(folder, entry) || '.'),
    });
  }
  return tightened;
}
