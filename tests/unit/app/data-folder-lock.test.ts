/** The data-folder lock: exclusive, taken over from dead processes, released only by its owner. */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataFolderLock, DataFolderLockedError } from '../../../src/app/data-folder-lock.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'tsuka-lock-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const lockFile = () => path.join(folder, 'tsuka.lock');

describe('acquireDataFolderLock', () => {
  it('refuses a folder held by a live process, naming its pid and start time', async () => {
    await writeFile(lockFile(), JSON.stringify({ pid: 4242, since: '2026-01-02T03:04:05.000Z' }));
    const attempt = () => acquireDataFolderLock(folder, { pid: 7, isAlive: (pid) => pid === 4242 });
    expect(attempt).toThrow(DataFolderLockedError);
    expect(attempt).toThrow(/already running on this data folder .*pid 4242, since 2026-01-02T03:04:05\.000Z.*TSUKA_DATA_DIR/);
    expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(4242);
  });

  it('takes over the lock of a dead process, and of its own pid reused after a restart', async () => {
    await writeFile(lockFile(), JSON.stringify({ pid: 4242, since: '2026-01-02T03:04:05.000Z' }));
    const lock = acquireDataFolderLock(folder, { pid: 7, isAlive: () => false });
    expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(7);
    lock.release();
    await writeFile(lockFile(), JSON.stringify({ pid: 7, since: '2026-01-02T03:04:05.000Z' }));
    const again = acquireDataFolderLock(folder, { pid: 7, isAlive: () => true });
    expect(JSON.parse(await readFile(lockFile(), 'utf8')).since).not.toBe('2026-01-02T03:04:05.000Z');
    again.release();
  });

  it('refuses a second lock in the same process and releases only its own file', async () => {
    const lock = acquireDataFolderLock(folder);
    expect(() => acquireDataFolderLock(folder)).toThrow(DataFolderLockedError);
    lock.release();
    await expect(readFile(lockFile(), 'utf8')).rejects.toThrow();
    const next = acquireDataFolderLock(folder);
    // A release after someone else took the folder over leaves their lock alone.
    await writeFile(lockFile(), JSON.stringify({ pid: 999_999, since: '2026-01-02T03:04:05.000Z' }));
    next.release();
    expect(JSON.parse(await readFile(lockFile(), 'utf8')).pid).toBe(999_999);
  });

  it('creates the data folder when it does not exist yet', async () => {
    const nested = path.join(folder, 'a', 'b');
    const lock = acquireDataFolderLock(nested);
    expect(JSON.parse(await readFile(path.join(nested, 'tsuka.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
    await mkdir(nested, { recursive: true });
  });
});
