import { constants, type Dirent } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type BeneathDirectory, openSubdirectory } from '../safety/open-beneath.js';
import type { Workspace } from './tool.js';
import { isMissingError, openFileBeneath, openFolderBeneath } from './workspace-files.js';

/** Folders no search or scan should descend into. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface WalkedFile {
  absolutePath: string;
  size: number;
  /** The content, read through the open folder (never by path again); undefined if it is gone or no longer a regular file. */
  read(): Promise<Buffer | undefined>;
}

/**
 * Depth-first walk in name order, through folder descriptors (see `open-beneath`): a folder
 * swapped for a link while the walk runs is not entered. Symbolic links are never followed: a
 * link could lead out of the workspace jail. `start` is a path the jail has resolved.
 */
export async function* walkFiles(
  workspace: Workspace,
  start: string,
  options: { signal?: AbortSignal; skipDirectories?: ReadonlySet<string> } = {},
): AsyncGenerator<WalkedFile> {
  const skip = options.skipDirectories ?? SKIPPED_DIRECTORIES;
  const single = await openFileBeneath(workspace, start);
  if (!single) return;
  try {
    if (!single.stats.isDirectory()) {
      yield { absolutePath: start, size: single.stats.size, read: () => single.handle.readFile() };
      return;
    }
  } finally {
    await single.handle.close();
  }
  const folder = await openFolderBeneath(workspace, start);
  if (!folder) return;
  yield* walkFolder(folder, start, skip, options.signal);
}

async function* walkFolder(folder: BeneathDirectory, where: string, skip: ReadonlySet<string>, signal: AbortSignal | undefined): AsyncGenerator<WalkedFile> {
  try {
    signal?.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await readdir(folder.self, { withFileTypes: true });
    } catch (error) {
      // An unreadable folder (permissions) is skipped so one bad folder does not end the search.
      if (isAccessError(error)) return;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) subdirectories.push(entry.name);
      } else if (entry.isFile()) {
        const size = await lstat(folder.entry(entry.name)).then(
          (stats) => (stats.isFile() ? stats.size : -1),
          () => -1,
        );
        if (size >= 0) yield { absolutePath: join(where, entry.name), size, read: () => readEntry(folder, entry.name) };
      }
    }
    for (const name of subdirectories) {
      const child = await openChild(folder, name);
      if (child) yield* walkFolder(child, join(where, name), skip, signal);
    }
  } finally {
    await folder.close();
  }
}

/** The subfolder `name`, opened without following a link; undefined if it is gone, unreadable or no longer a folder. */
async function openChild(folder: BeneathDirectory, name: string): Promise<BeneathDirectory | undefined> {
  try {
    return await openSubdirectory(folder, name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissingError(error) || code === 'ELOOP' || isAccessError(error)) return undefined;
    throw error;
  }
}

async function readEntry(folder: BeneathDirectory, name: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(folder.entry(name), READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isMissingError(error) || code === 'ELOOP' || isAccessError(error)) return undefined;
    throw error;
  }
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
  } finally {
    await handle.close();
  }
}

function isAccessError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}
