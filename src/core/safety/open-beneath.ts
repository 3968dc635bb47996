/**
 * Race-free opening beneath the workspace root (issue 29). A path checked with realpath and
 * opened later can be sent elsewhere by a folder swapped for a link in between. Node has no
 * openat/openat2, so on Linux the walk emulates openat: every folder is opened with
 * O_DIRECTORY|O_NOFOLLOW, and the next name is reached through `/proc/self/fd/<fd>/<name>`, which
 * resolves to the folder already open — a later swap of an ancestor changes nothing. A link met on
 * the way is read and followed explicitly, only while it stays inside the root (a `..` is taken
 * lexically against the folders already open); the opened folder's own path is checked once more
 * before it is used. Where /proc is missing (not Linux) the resolved path is used as it is: the
 * check-then-use race remains there.
 */
import { constants, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceEscapeError } from '../errors.js';
import { isInside } from './real-path.js';

/** Link hops before giving up, like the kernel's ELOOP limit. */
export const MAX_SYMLINK_HOPS = 40;
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Whether descriptors can be addressed by path here (Linux with /proc mounted); read once. */
export const DESCRIPTOR_PATHS_AVAILABLE: boolean = process.platform === 'linux' && existsSync('/proc/self/fd');

/** A folder inside the workspace, held open; its entries are reached without resolving its ancestors again. */
export interface BeneathDirectory {
  /** Where the folder was when it was opened (absolute). */
  readonly path: string;
  /** A path to the folder itself (for readdir), bound to the open folder. */
  readonly self: string;
  /** A path to `name` (one component) in this folder; the last component is resolved by the call using it. */
  entry(name: string): string;
  close(): Promise<void>;
}

/** The folder holding a target and the target's name in it. */
export interface BeneathEntry {
  directory: BeneathDirectory;
  /** The last component; `''` when the target is the root itself. */
  name: string;
  /** The target's absolute path as walked (root plus names), for messages. */
  path: string;
}

export interface BeneathWalkOptions {
  /** Follow a link in the last component (when it stays inside); otherwise the link itself is the target. */
  followFinal: boolean;
  /** Create missing folders on the way (write_file creates parent folders). */
  createFolders?: boolean;
  /** The path as it was asked for, for the error message. */
  requested?: string;
}

function openedDirectory(handle: fs.FileHandle, where: string): BeneathDirectory {
  const self = `/proc/self/fd/${handle.fd}`;
  return { path: where, self, entry: (name) => `${self}/${name}`, close: () => handle.close() };
}

/** Today's behaviour where descriptors cannot be addressed by path: the path itself. */
function plainDirectory(where: string): BeneathDirectory {
  return { path: where, self: where, entry: (name) => path.join(where, name), close: async () => undefined };
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Throws unless what `descriptorPath` (`/proc/self/fd/N`) holds open is (still) inside `root`, by the kernel's own path for it. */
export async function assertDescriptorInside(root: string, descriptorPath: string, requested: string): Promise<void> {
  if (!DESCRIPTOR_PATHS_AVAILABLE) return;
  const real = await fs.readlink(descriptorPath);
  if (!isInside(root, real)) throw new WorkspaceEscapeError(requested);
}

interface WalkState {
  root: string;
  requested: string;
  /** Open folders from the root down; the last is where the walk is. */
  opened: fs.FileHandle[];
  names: string[];
  hops: number;
}

async function closeAll(handles: fs.FileHandle[]): Promise<void> {
  await Promise.all(handles.map((handle) => handle.close()));
}

/** The components a link's target stands for; absolute targets restart at the root. */
async function followLink(state: WalkState, target: string): Promise<string[]> {
  state.hops += 1;
  if (state.hops > MAX_SYMLINK_HOPS) throw new WorkspaceEscapeError(state.requested, { cause: new Error('too many symbolic links') });
  if (!path.isAbsolute(target)) return target.split('/');
  if (!isInside(state.root, target)) throw new WorkspaceEscapeError(state.requested);
  await closeAll(state.opened.splice(1));
  state.names = [];
  return path.relative(state.root, target).split(path.sep);
}

/**
 * Opens the next folder `name` below the current one: the folder's handle, the components of a
 * link found there instead, or a thrown ENOENT/ENOTDIR when there is no such folder.
 */
async function openStep(state: WalkState, name: string, createFolders: boolean): Promise<fs.FileHandle | string[]> {
  const current = `/proc/self/fd/${(state.opened.at(-1) as fs.FileHandle).fd}/${name}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fs.open(current, DIRECTORY_FLAGS);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' && createFolders) {
        await fs.mkdir(current).catch((mkdirError: unknown) => {
          if (errorCode(mkdirError) !== 'EEXIST') throw mkdirError;
        });
        continue;
      }
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
      const link = await readLinkIfAny(current);
      if (link !== undefined) return followLink(state, link);
      // Not a link (any more): a folder again means a flip in progress (try again); anything else is a file on the way.
      const now = await fs.lstat(current).catch((lstatError: unknown) => {
        if (errorCode(lstatError) === 'ENOENT') return undefined;
        throw lstatError;
      });
      if (!now?.isDirectory() || attempt >= MAX_SYMLINK_HOPS) throw error;
    }
  }
}

async function readLinkIfAny(entry: string): Promise<string | undefined> {
  try {
    return await fs.readlink(entry);
  } catch (error) {
    // EINVAL: not a link; ENOENT: gone meanwhile. Either way there is no link to follow.
    if (errorCode(error) === 'EINVAL' || errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

async function walk(state: WalkState, components: string[], options: BeneathWalkOptions): Promise<BeneathEntry> {
  const queue = [...components];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (state.opened.length === 1) throw new WorkspaceEscapeError(state.requested);
      await (state.opened.pop() as fs.FileHandle).close();
      state.names.pop();
      continue;
    }
    if (!queue.some((rest) => rest !== '' && rest !== '.')) {
      const link = options.followFinal ? await readLinkIfAny(`/proc/self/fd/${(state.opened.at(-1) as fs.FileHandle).fd}/${name}`) : undefined;
      if (link === undefined) return finish(state, name);
      queue.unshift(...(await followLink(state, link)));
      continue;
    }
    const step = await openStep(state, name, options.createFolders === true);
    if (Array.isArray(step)) queue.unshift(...step);
    else {
      state.opened.push(step);
      state.names.push(name);
    }
  }
  return finish(state, '');
}

async function finish(state: WalkState, name: string): Promise<BeneathEntry> {
  const handle = state.opened.pop() as fs.FileHandle;
  await closeAll(state.opened);
  const directory = openedDirectory(handle, path.join(state.root, ...state.names));
  try {
    await assertDescriptorInside(state.root, directory.self, state.requested);
  } catch (error) {
    await directory.close();
    throw error;
  }
  return { directory, name, path: path.join(directory.path, name) };
}

/**
 * Opens the folder that holds `absolutePath` (a path inside `root`, the workspace's realpath)
 * without following any link outside the root. The caller closes `directory`.
 */
export async function openParentBeneath(root: string, absolutePath: string, options: BeneathWalkOptions): Promise<BeneathEntry> {
  const requested = options.requested ?? absolutePath;
  if (!isInside(root, absolutePath)) throw new WorkspaceEscapeError(requested);
  if (!DESCRIPTOR_PATHS_AVAILABLE) {
    const isRoot = path.relative(root, absolutePath) === '';
    const parent = isRoot ? absolutePath : path.dirname(absolutePath);
    if (options.createFolders) await fs.mkdir(parent, { recursive: true });
    return { directory: plainDirectory(parent), name: isRoot ? '' : path.basename(absolutePath), path: absolutePath };
  }
  const state: WalkState = { root, requested, opened: [await fs.open(root, DIRECTORY_FLAGS)], names: [], hops: 0 };
  try {
    return await walk(state, path.relative(root, absolutePath).split(path.sep), options);
  } catch (error) {
    await closeAll(state.opened);
    throw error;
  }
}

/**
 * Opens the subfolder `name` (one component) of an open folder without following a link; throws
 * ENOENT/ENOTDIR/ELOOP when it is gone, not a folder, or a link. The caller closes it.
 */
export async function openSubdirectory(parent: BeneathDirectory, name: string): Promise<BeneathDirectory> {
  const where = path.join(parent.path, name);
  if (!DESCRIPTOR_PATHS_AVAILABLE) return plainDirectory(where);
  return openedDirectory(await fs.open(parent.entry(name), DIRECTORY_FLAGS), where);
}

/** Opens the folder `absolutePath` itself (following an inside link at its end). The caller closes it. */
export async function openDirectoryBeneath(root: string, absolutePath: string, requested?: string): Promise<BeneathDirectory> {
  const entry = await openParentBeneath(root, absolutePath, { followFinal: true, ...(requested !== undefined ? { requested } : {}) });
  if (entry.name === '') return entry.directory;
  try {
    if (!DESCRIPTOR_PATHS_AVAILABLE) return plainDirectory(entry.path);
    const handle = await fs.open(entry.directory.entry(entry.name), DIRECTORY_FLAGS);
    const directory = openedDirectory(handle, entry.path);
    await assertDescriptorInside(root, directory.self, requested ?? absolutePath).catch(async (error: unknown) => {
      await directory.close();
      throw error;
    });
    return directory;
  } finally {
    await entry.directory.close();
  }
}
