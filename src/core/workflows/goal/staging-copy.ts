/**
 * Making a staging area without copying (issue 42). Each file of the workspace is, by preference:
 * - a reflink (`reflink`): a copy-on-write clone, private from the start (btrfs, XFS, …);
 * - a hard link (`hardlink`, where clones are not supported, e.g. ext4): the same inode as the
 *   workspace's file. The file tools write by replacing a file (a new inode), never in place, so
 *   they cannot reach the workspace's; a sandboxed command could write in place, so before the
 *   first command runs in the staging every file still shared is made private (`makePrivate`);
 * - a copy (`copy`), for a file that can be neither (another file system, a protected link).
 * Every file's stamp is noted as it is made (`fileStamp`), so a diff reads only what was written.
 * Metadata calls run synchronously in short batches (a few hundred entries, then the event loop
 * gets its turn): through the thread pool each would cost a round trip, which is what bound the
 * old copy.
 */
import { randomBytes } from 'node:crypto';
import fs, { constants } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isInside, realpathAllowMissingSync } from '../../safety/real-path.js';
import { fileStamp, STAGING_DEPENDENCY_FOLDERS, STAGING_SKIPPED_DIRECTORIES, type Manifest } from './workspace-manifest.js';

export type StagingMode = 'reflink' | 'hardlink' | 'copy';

/** Entries handled before the event loop gets a turn. */
const BATCH = 256;
/** Files larger than this are copied through the thread pool, not synchronously. */
const LARGE_FILE = 1024 * 1024;
/** How often a file the workspace keeps writing is copied again before a command is refused. */
const PRIVATE_ATTEMPTS = 3;

export interface CopiedTree {
  mode: StagingMode;
  /** Path → the workspace's entry when the staging was made: a stamp for a file, `link:`/`link-outside:` for a link. */
  base: Manifest;
  /** Path → the stamp of the staging's own file when made (the same as the base's for a hard link). */
  stamps: Map<string, string>;
  skippedLinks: string[];
  /** Dependency folders (skipped by name), to be linked to the workspace's own. */
  dependencies: string[];
}

/**
 * Fills `to` from `from` (both realpaths; `to` exists and is empty). `excluded`: absolute folders
 * not walked (the staging root when it lives in the workspace). `wanted` forces a mode (tests, bench).
 */
export async function fillStaging(
  from: string,
  to: string,
  options: { excluded: readonly string[]; signal?: AbortSignal; wanted?: StagingMode },
): Promise<CopiedTree> {
  const tree: CopiedTree = { mode: options.wanted ?? 'reflink', base: new Map(), stamps: new Map(), skippedLinks: [], dependencies: [] };
  let probed = options.wanted !== undefined;
  const excluded = new Set(options.excluded);
  const pending: string[] = [''];
  let handled = 0;
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const folder = pending.pop() as string;
    for (const entry of fs.readdirSync(path.join(from, folder), { withFileTypes: true })) {
      const relative = folder === '' ? entry.name : path.join(folder, entry.name);
      const source = path.join(from, relative);
      const destination = path.join(to, relative);
      if (STAGING_SKIPPED_DIRECTORIES.has(entry.name)) {
        if (entry.isDirectory() && STAGING_DEPENDENCY_FOLDERS.has(entry.name)) tree.dependencies.push(relative);
        continue;
      }
      if (entry.isDirectory()) {
        if (excluded.has(source)) continue;
        fs.mkdirSync(destination);
        pending.push(relative);
      } else if (entry.isSymbolicLink()) {
        linkInside(from, to, relative, tree);
      } else if (entry.isFile()) {
        if (!probed) {
          tree.mode = canClone(source, destination) ? 'reflink' : 'hardlink';
          probed = true;
          if (tree.mode === 'reflink') {
            noteCopy(tree, relative, source, destination);
            continue;
          }
        }
        await placeFile(tree, relative, source, destination);
      }
      handled += 1;
      if (handled % BATCH === 0) await nextTurn();
    }
  }
  return tree;
}

/** Whether the file system clones files: the first file is cloned or nothing is made. */
function canClone(source: string, destination: string): boolean {
  try {
    fs.copyFileSync(source, destination, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    fs.rmSync(destination, { force: true });
    return false;
  }
}

async function placeFile(tree: CopiedTree, relative: string, source: string, destination: string): Promise<void> {
  if (tree.mode === 'hardlink') {
    try {
      fs.linkSync(source, destination);
      // Stamped after linking: the base is what was linked.
      const stamp = fileStamp(fs.lstatSync(destination, { bigint: true }));
      tree.base.set(relative, stamp);
      tree.stamps.set(relative, stamp);
      return;
    } catch {
      // EXDEV (another file system), EPERM (protected_hardlinks), EMLINK: this one is copied.
    }
  }
  await copyOne(tree, relative, source, destination);
}

async function copyOne(tree: CopiedTree, relative: string, source: string, destination: string): Promise<void> {
  const before = fs.lstatSync(source, { bigint: true });
  if (before.size > LARGE_FILE) await fsp.copyFile(source, destination, constants.COPYFILE_FICLONE);
  else if (tree.mode === 'reflink') fs.copyFileSync(source, destination, constants.COPYFILE_FICLONE);
  else copySmall(source, destination, Number(before.mode) & 0o7777);
  tree.base.set(relative, fileStamp(before));
  tree.stamps.set(relative, fileStamp(fs.lstatSync(destination, { bigint: true })));
}

function noteCopy(tree: CopiedTree, relative: string, source: string, destination: string): void {
  tree.base.set(relative, fileStamp(fs.lstatSync(source, { bigint: true })));
  tree.stamps.set(relative, fileStamp(fs.lstatSync(destination, { bigint: true })));
}

/** A link leading inside the workspace is re-pointed at the copy (relative); one leading outside is not copied. */
function linkInside(from: string, to: string, relative: string, tree: CopiedTree): void {
  const source = path.join(from, relative);
  const rawTarget = fs.readlinkSync(source);
  let real: string | undefined;
  try {
    real = realpathAllowMissingSync(path.resolve(path.dirname(source), rawTarget));
  } catch {
    real = undefined; // a loop cannot be shown to stay inside
  }
  if (real === undefined || !isInside(from, real)) {
    tree.skippedLinks.push(relative);
    return;
  }
  const relativeTarget = path.relative(from, real);
  const destination = path.join(to, relative);
  fs.symlinkSync(path.relative(path.dirname(destination), path.join(to, relativeTarget)) || '.', destination);
  tree.base.set(relative, `link:${relativeTarget}`);
}

/** `dev:ino` of the files a hard-link staging still shares with the workspace, from its base and stamps. */
export function sharedInodes(base: Manifest, stamps: ReadonlyMap<string, string>): Set<string> {
  const shared = new Set<string>();
  for (const [relative, stamp] of stamps) {
    if (base.get(relative) === stamp) shared.add(stamp.split(':').slice(1, 3).join(':'));
  }
  return shared;
}

/**
 * Gives every file of the staging that still shares an inode of `shared` (with the workspace or a
 * sibling staging) a private copy, renamed over it; an unchanged file's stamp is moved to the copy,
 * so it still diffs as unchanged without being read. Returns how many files were copied; throws
 * when a file could not be made private (the command must not run then).
 */
export async function makePrivate(root: string, shared: ReadonlySet<string>, stamps: Map<string, string>): Promise<number> {
  let copied = 0;
  let handled = 0;
  const pending: string[] = [''];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
      const relative = folder === '' ? entry.name : path.join(folder, entry.name);
      if (entry.isDirectory() && !STAGING_SKIPPED_DIRECTORIES.has(entry.name)) pending.push(relative);
      else if (entry.isFile() && (await privateFile(root, relative, shared, stamps))) copied += 1;
      handled += 1;
      if (handled % BATCH === 0) await nextTurn();
    }
  }
  return copied;
}

async function privateFile(root: string, relative: string, shared: ReadonlySet<string>, stamps: Map<string, string>): Promise<boolean> {
  const file = path.join(root, relative);
  for (let attempt = 0; attempt < PRIVATE_ATTEMPTS; attempt += 1) {
    const before = fs.lstatSync(file, { bigint: true });
    if (!shared.has(`${before.dev}:${before.ino}`) || before.nlink <= 1n) return false;
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tsuka-private`);
    try {
      if (before.size > LARGE_FILE) await fsp.copyFile(file, temporary, constants.COPYFILE_EXCL);
      else copySmall(file, temporary, Number(before.mode) & 0o7777);
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
    const after = fs.lstatSync(file, { bigint: true });
    if (fileStamp(after) !== fileStamp(before)) {
      // Written meanwhile (by the workspace): the copy may be torn, so it is made again.
      fs.rmSync(temporary, { force: true });
      continue;
    }
    const copyStamp = fileStamp(fs.lstatSync(temporary, { bigint: true }));
    fs.renameSync(temporary, file);
    if (stamps.get(relative) === fileStamp(before)) stamps.set(relative, copyStamp);
    return true;
  }
  throw new Error(`${relative} kept changing while it was being made private.`);
}

/** A small file's copy with its mode: a read and a write cost a quarter of `copyFileSync` here (ext4, 16 KB). */
function copySmall(from: string, to: string, mode: number): void {
  const content = fs.readFileSync(from);
  const descriptor = fs.openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    fs.writeFileSync(descriptor, content);
    // The umask may have taken bits off the mode.
    if ((fs.fstatSync(descriptor).mode & 0o7777) !== mode) fs.fchmodSync(descriptor, mode);
  } finally {
    fs.closeSync(descriptor);
  }
}
