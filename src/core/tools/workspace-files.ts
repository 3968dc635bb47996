/**
 * The file tools' way into the workspace (issue 29): every open goes through the folder
 * descriptors of `open-beneath`, so a folder swapped for a link after the jail's check cannot send
 * a read, a listing or a delete outside. Only regular files are opened: a fifo or a device in the
 * workspace is refused before it is opened (a fifo would block the reader).
 */
import { constants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { WorkspaceEscapeError } from '../errors.js';
import { assertDescriptorInside, type BeneathDirectory, type BeneathEntry, openDirectoryBeneath, openParentBeneath } from '../safety/open-beneath.js';
import type { Workspace } from './tool.js';
import { ToolFailureError } from './tool-failure-error.js';

/** O_NOFOLLOW: a link swapped in at the last moment fails the open instead of being followed; O_NONBLOCK: a fifo never blocks. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A regular file (or a folder, for the caller to refuse) held open inside the workspace. */
export interface OpenedWorkspaceFile {
  handle: fs.FileHandle;
  stats: Stats;
}

export function isMissingError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A link that appeared in the last component between the walk and the open: refused, not followed. */
function refuseLateLink(error: unknown, requested: string): never {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ELOOP') throw new WorkspaceEscapeError(requested, { cause: error });
  throw error;
}

/** The folder holding `absolutePath` and its name there, or undefined when a folder on the way is missing. */
export async function locateBeneath(
  workspace: Workspace,
  absolutePath: string,
  options: { followFinal?: boolean; createFolders?: boolean } = {},
): Promise<BeneathEntry | undefined> {
  try {
    return await openParentBeneath(workspace.root, absolutePath, {
      followFinal: options.followFinal ?? true,
      ...(options.createFolders ? { createFolders: true } : {}),
      requested: workspace.relative(absolutePath),
    });
  } catch (error) {
    if (isMissingError(error)) return undefined;
    throw error;
  }
}

/** A path to the entry itself: its name in the open folder, or the folder for the root. */
export function entryPath(entry: BeneathEntry): string {
  return entry.name === '' ? entry.directory.self : entry.directory.entry(entry.name);
}

/**
 * `lstat` of the entry. The root is the open folder itself, reached through its descriptor's
 * magic link, which must be followed (it is the folder already checked).
 */
export function lstatEntry(entry: BeneathEntry): Promise<Stats> {
  return entry.name === '' ? fs.stat(entry.directory.self) : fs.lstat(entry.directory.entry(entry.name));
}

/** `lstat` of the entry (an inside link at the end followed unless `followLinks` is false); undefined when missing. */
export async function statBeneath(workspace: Workspace, absolutePath: string, options: { followLinks?: boolean } = {}): Promise<Stats | undefined> {
  const entry = await locateBeneath(workspace, absolutePath, { followFinal: options.followLinks !== false });
  if (!entry) return undefined;
  try {
    return await lstatEntry(entry);
  } catch (error) {
    if (isMissingError(error)) return undefined;
    throw error;
  } finally {
    await entry.directory.close();
  }
}

/**
 * Opens `absolutePath` for reading without following any link out of the workspace; undefined
 * when it does not exist. A folder is opened too (the caller says "is a folder"); anything else
 * that is not a regular file is refused. The caller closes the handle.
 */
export async function openFileBeneath(workspace: Workspace, absolutePath: string): Promise<OpenedWorkspaceFile | undefined> {
  const entry = await locateBeneath(workspace, absolutePath);
  if (!entry) return undefined;
  const requested = workspace.relative(absolutePath);
  try {
    const before = await lstatEntry(entry);
    if (!before.isFile() && !before.isDirectory()) throw new ToolFailureError(`${requested} is not a regular file (a fifo, socket or device).`);
    const flags = entry.name === '' ? READ_FLAGS & ~constants.O_NOFOLLOW : READ_FLAGS;
    const handle = await fs.open(entryPath(entry), flags).catch((error: unknown) => refuseLateLink(error, requested));
    try {
      const stats = await handle.stat();
      if (!stats.isFile() && !stats.isDirectory()) throw new ToolFailureError(`${requested} is not a regular file (a fifo, socket or device).`);
      await assertDescriptorInside(workspace.root, `/proc/self/fd/${handle.fd}`, requested);
      return { handle, stats };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    if (isMissingError(error)) return undefined;
    throw error;
  } finally {
    await entry.directory.close();
  }
}

/** Runs `use` on the open file and closes it; undefined when the file does not exist. */
export async function withFileBeneath<T>(workspace: Workspace, absolutePath: string, use: (file: OpenedWorkspaceFile) => Promise<T>): Promise<T | undefined> {
  const file = await openFileBeneath(workspace, absolutePath);
  if (!file) return undefined;
  try {
    return await use(file);
  } finally {
    await file.handle.close();
  }
}

/** The whole content of a regular file in the workspace, read race-free; undefined when missing or not a file. */
export async function readFileBeneath(workspace: Workspace, absolutePath: string): Promise<Buffer | undefined> {
  return withFileBeneath(workspace, absolutePath, async (file) => (file.stats.isFile() ? file.handle.readFile() : undefined));
}

/** Opens the folder `absolutePath` (an inside link at its end followed); the caller closes it. Missing → undefined. */
export async function openFolderBeneath(workspace: Workspace, absolutePath: string): Promise<BeneathDirectory | undefined> {
  try {
    return await openDirectoryBeneath(workspace.root, absolutePath, workspace.relative(absolutePath));
  } catch (error) {
    if (isMissingError(error)) return undefined;
    throw error;
  }
}
