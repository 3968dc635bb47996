import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs, { chmod, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WorkspaceEscapeError } from '../errors.js';
import { assertDescriptorInside } from '../safety/open-beneath.js';
import type { Workspace } from './tool.js';
import { ToolFailureError } from './tool-failure-error.js';
import { isMissingError, locateBeneath, readFileBeneath } from './workspace-files.js';

/**
 * Writes through a temp file in the same directory and renames it over the target, so a crash
 * or an abort never leaves a half-written file. Keeps the mode of a file it replaces.
 * For paths outside the workspace (the data folder); workspace files use {@link writeFileBeneath}.
 */
export async function writeFileAtomic(absolutePath: string, content: string | Uint8Array): Promise<void> {
  const temporary = join(dirname(absolutePath), `.${basename(absolutePath)}.${randomBytes(6).toString('hex')}.tmp`);
  const previousMode = await stat(absolutePath).then(
    (stats) => stats.mode & 0o7777,
    () => undefined,
  );
  try {
    await writeFile(temporary, content);
    if (previousMode !== undefined) await chmod(temporary, previousMode);
    await rename(temporary, absolutePath);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A temp file being filled beside its target; `commit` renames it over the target, `discard` removes it. */
export interface PendingWrite {
  handle: fs.FileHandle;
  /** Whether a file was there to replace when the write began. */
  replaces: boolean;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/** O_EXCL|O_NOFOLLOW: the temp name is new, never a link planted in advance. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Starts an atomic write of a workspace file (issue 29): parent folders are created and opened
 * through descriptors, the temp file is created in the opened folder and renamed within it, so
 * neither can land outside the workspace whatever is swapped meanwhile. An inside link at the end
 * is written through (its target is replaced); a folder at the path is refused.
 */
export async function beginWriteBeneath(workspace: Workspace, absolutePath: string, suffix = 'tmp'): Promise<PendingWrite> {
  const shown = workspace.relative(absolutePath);
  const entry = await locateBeneath(workspace, absolutePath, { createFolders: true });
  if (!entry) throw new ToolFailureError(`A folder on the way to ${shown} is a file.`);
  const { directory, name } = entry;
  try {
    if (name === '') throw new ToolFailureError(`${shown} is a directory; give a file path.`);
    const previous = await fs.lstat(directory.entry(name)).catch((error: unknown) => {
      if (isMissingError(error)) return undefined;
      throw error;
    });
    if (previous?.isDirectory()) throw new ToolFailureError(`${shown} is a directory; give a file path.`);
    if (previous && !previous.isFile()) throw new WorkspaceEscapeError(shown);
    const temporary = directory.entry(`.${name}.${randomBytes(6).toString('hex')}.${suffix}`);
    const handle = await fs.open(temporary, TEMP_FLAGS, 0o666);
    if (previous) await handle.chmod(previous.mode & 0o7777);
    let settled = false;
    const discard = async (): Promise<void> => {
      if (settled) return;
      settled = true;
      await handle.close().catch(() => undefined); // already closed when the rename failed
      await rm(temporary, { force: true });
      await directory.close();
    };
    const commit = async (): Promise<void> => {
      try {
        await handle.close();
        await assertDescriptorInside(workspace.root, directory.self, shown);
        await rename(temporary, directory.entry(name));
      } catch (error) {
        await discard();
        throw error;
      }
      settled = true;
      await directory.close();
    };
    return { handle, replaces: previous !== undefined, commit, discard };
  } catch (error) {
    await directory.close();
    throw error;
  }
}

/** Creates or replaces a workspace file atomically (see {@link beginWriteBeneath}); says whether it replaced one. */
export async function writeFileBeneath(workspace: Workspace, absolutePath: string, content: string | Uint8Array): Promise<{ replaced: boolean }> {
  const pending = await beginWriteBeneath(workspace, absolutePath);
  try {
    await pending.handle.writeFile(content);
  } catch (error) {
    await pending.discard();
    throw error;
  }
  await pending.commit();
  return { replaced: pending.replaces };
}

/** Appends to a workspace file (created when missing) through its folder's descriptor; never through a link. */
export async function appendFileBeneath(workspace: Workspace, absolutePath: string, content: string): Promise<void> {
  const shown = workspace.relative(absolutePath);
  const entry = await locateBeneath(workspace, absolutePath, { createFolders: true });
  if (!entry) throw new ToolFailureError(`A folder on the way to ${shown} is a file.`);
  try {
    if (entry.name === '') throw new ToolFailureError(`${shown} is a directory; give a file path.`);
    const handle = await fs.open(entry.directory.entry(entry.name), APPEND_FLAGS, 0o666).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new WorkspaceEscapeError(shown, { cause: error });
      if (code === 'EISDIR') throw new ToolFailureError(`${shown} is a directory; give a file path.`, { cause: error });
      throw error;
    });
    let shared = false;
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ToolFailureError(`${shown} is not a regular file.`);
      await assertDescriptorInside(workspace.root, `/proc/self/fd/${handle.fd}`, shown);
      // A hard link shared with the real workspace is never appended to in place: it is replaced.
      shared = workspace.linkedFiles === true && stats.nlink > 1;
      if (!shared) await handle.appendFile(content);
    } finally {
      await handle.close();
    }
    if (shared) {
      const before = (await readFileBeneath(workspace, absolutePath)) ?? Buffer.alloc(0);
      await writeFileBeneath(workspace, absolutePath, Buffer.concat([before, Buffer.from(content)]));
    }
  } finally {
    await entry.directory.close();
  }
}
