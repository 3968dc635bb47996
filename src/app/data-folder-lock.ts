/**
 * One `tsuka start` per data folder. The lock is a file, `<data dir>/tsuka.lock`, created
 * exclusively (`O_EXCL`) before the store is opened, holding the owner's pid and start time.
 * A lock whose process is gone (SIGKILL, power loss) is taken over; a live one stops the second
 * start before it touches anything (restart recovery would otherwise expire the first one's
 * approvals). Liveness is `kill(pid, 0)` on this host: a data folder shared between machines is
 * not supported.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync, linkSync } from 'node:fs';
import path from 'node:path';
import { TsukaError } from '../core/errors.js';
import { makePrivateFolderSync, PRIVATE_FILE_MODE } from '../core/store/private-files.js';

export const DATA_FOLDER_LOCK_FILE_NAME = 'tsuka.lock';

/** Another live process holds the data folder. */
export class DataFolderLockedError extends TsukaError {
  readonly pid: number;
  readonly since: Date;
  readonly dataDirectory: string;
  constructor(dataDirectory: string, pid: number, since: Date) {
    super(
      'data_folder_locked',
      `TSUKA is already running on this data folder (${dataDirectory}): pid ${pid}, since ${since.toISOString()}. Stop it, or set TSUKA_DATA_DIR to another folder.`,
    );
    this.pid = pid;
    this.since = since;
    this.dataDirectory = dataDirectory;
  }
}

export interface DataFolderLock {
  readonly file: string;
  /** Removes the lock file if it is still this process's. Safe to call twice. */
  release(): void;
}

interface LockContent {
  pid: number;
  since: string;
}

/** Locks held by this process: a second start in the same process is refused too (tests run several apps in one process). */
const heldHere = new Set<string>();

export interface AcquireLockOptions {
  /** Is the process alive? Injected in tests; defaults to `kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
  pid?: number;
  now?: () => Date;
}

/** Takes the lock or throws `DataFolderLockedError`. */
export function acquireDataFolderLock(dataDirectory: string, options: AcquireLockOptions = {}): DataFolderLock {
  const isAlive = options.isAlive ?? processIsAlive;
  const pid = options.pid ?? process.pid;
  const file = path.join(dataDirectory, DATA_FOLDER_LOCK_FILE_NAME);
  try {
    makePrivateFolderSync(dataDirectory);
  } catch (error) {
    throw new TsukaError(
      'data_folder_unwritable',
      `The data folder ${dataDirectory} cannot be created (${(error as NodeJS.ErrnoException).code ?? 'error'}): check TSUKA_DATA_DIR and that this user may write there.`,
      { cause: error },
    );
  }
  const mine: LockContent = { pid, since: (options.now?.() ?? new Date()).toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  // Two rounds: the second after a stale lock was moved aside.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (heldHere.has(file)) throw lockedError(dataDirectory, readLock(file) ?? mine);
    if (createExclusive(file, text)) {
      heldHere.add(file);
      return {
        file,
        release() {
          if (!heldHere.delete(file)) return;
          const current = readLock(file);
          if (current && current.pid === mine.pid && current.since === mine.since) unlinkSync(file);
        },
      };
    }
    const existing = readLock(file);
    // Our own pid in a lock we do not hold here: pid reuse after a container restart — stale.
    if (existing && existing.pid !== pid && isAlive(existing.pid)) throw lockedError(dataDirectory, existing);
    takeOverStale(file, existing, pid);
  }
  const holder = readLock(file);
  throw holder
    ? lockedError(dataDirectory, holder)
    : new TsukaError('data_folder_locked', `Could not lock the data folder ${dataDirectory}: remove ${file} if no TSUKA runs there.`);
}

function createExclusive(file: string, text: string): boolean {
  // Written to a private file first and linked into place, so the lock never exists half-written.
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, text, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new TsukaError('data_folder_lock_failed', `Could not create the lock file ${file}: check that this user may write to the data folder.`, {
      cause: error,
    });
  } finally {
    unlinkSync(temporary);
  }
}

/**
 * Moves a stale lock aside. If another starter replaced it in between (its fresh lock is what we
 * moved), it is put back, and the next attempt sees a live holder.
 */
function takeOverStale(file: string, stale: LockContent | undefined, pid: number): void {
  const aside = `${file}.stale.${pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new TsukaError('data_folder_lock_failed', `Could not take over the stale lock ${file}.`, { cause: error });
  }
  const moved = readLock(aside);
  if (stale && moved && (moved.pid !== stale.pid || moved.since !== stale.since)) {
    try {
      linkSync(aside, file);
    } catch (error) {
      // Someone else already holds a newer lock: the next attempt reports them.
      void error;
    }
  }
  unlinkSync(aside);
}

function readLock(file: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockContent>;
    if (typeof parsed.pid === 'number' && typeof parsed.since === 'string') return { pid: parsed.pid, since: parsed.since };
    return undefined;
  } catch (error) {
    // Missing or unreadable: treated as no holder (a half-written file cannot exist, see createExclusive).
    void error;
    return undefined;
  }
}

function lockedError(dataDirectory: string, holder: LockContent): DataFolderLockedError {
  return new DataFolderLockedError(dataDirectory, holder.pid, new Date(holder.since));
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
