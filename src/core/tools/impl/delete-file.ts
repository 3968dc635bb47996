import { rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { BeneathEntry } from '../../safety/open-beneath.js';
import { formatBytes } from '../format-bytes.js';
import type { CallPreview, ToolContext, ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { isMissingError, locateBeneath, lstatEntry } from '../workspace-files.js';
import { displayPath } from '../workspace-paths.js';

export type DeleteFileInput = { path: string };

/**
 * `delete_file`: removes one file, symbolic link or empty folder — never a folder with content
 * and never the workspace root. A link is removed itself, not the file it points to.
 */
export const deleteFileTool: ToolImplementation<DeleteFileInput> = {
  name: 'delete_file',

  async preview(input, context): Promise<CallPreview> {
    try {
      const entry = await locate(input.path, context);
      await entry.at.directory.close();
      const kind = entry.kind === 'file' ? `file, ${formatBytes(entry.size)}` : entry.kind;
      return { summary: `delete_file ${entry.shown}`, details: [`delete: ${entry.shown} (${kind})`] };
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      return { summary: `delete_file ${input.path}`, details: [`refused: ${problem}`] };
    }
  },

  async execute(input, context) {
    const entry = await locate(input.path, context);
    // Removed by its name in the folder held open since the check: a swapped ancestor cannot redirect it.
    const target = entry.at.directory.entry(entry.at.name);
    try {
      if (entry.kind === 'directory') {
        await rmdir(target).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOTEMPTY' || code === 'EEXIST') {
            throw new ToolFailureError(`${entry.shown} is a folder that is not empty; delete_file only removes files and empty folders.`, { cause: error });
          }
          throw error;
        });
        return { output: `Deleted the empty folder ${entry.shown}.`, display: 'folder' };
      }
      await unlink(target);
    } finally {
      await entry.at.directory.close();
    }
    const size = entry.kind === 'file' ? formatBytes(entry.size) : 'link';
    return { output: `Deleted ${entry.shown} (${size}).`, display: size };
  },
};

interface LocatedEntry {
  /** The open parent folder and the name in it; the caller closes the folder. */
  at: BeneathEntry;
  shown: string;
  kind: 'file' | 'directory' | 'symbolic link';
  size: number;
}

async function locate(requested: string, context: ToolContext): Promise<LocatedEntry> {
  const workspace = context.workspace;
  // The jail check on the full path refuses links that lead outside; the entry itself is then
  // addressed through its real parent so a link inside the workspace is removed as a link.
  const resolved = await workspace.resolve(requested);
  if (resolved === workspace.root) throw new ToolFailureError('delete_file never deletes the workspace root.');
  const parent = await workspace.resolve(dirname(requested));
  const name = basename(requested);
  const absolutePath = name === '' || name === '.' || name === '..' ? resolved : join(parent, name);
  if (absolutePath === workspace.root) throw new ToolFailureError('delete_file never deletes the workspace root.');
  const shown = displayPath(workspace, absolutePath);
  const at = await locateBeneath(workspace, absolutePath, { followFinal: false });
  if (!at) throw new ToolFailureError(`${shown} does not exist.`);
  try {
    if (at.name === '') throw new ToolFailureError('delete_file never deletes the workspace root.');
    const stats = await lstatEntry(at).catch((error: unknown) => {
      if (isMissingError(error)) throw new ToolFailureError(`${shown} does not exist.`, { cause: error });
      throw error;
    });
    if (stats.isSymbolicLink()) return { at, shown, kind: 'symbolic link', size: 0 };
    if (stats.isDirectory()) return { at, shown, kind: 'directory', size: 0 };
    if (!stats.isFile()) throw new ToolFailureError(`${shown} is not a regular file.`);
    return { at, shown, kind: 'file', size: stats.size };
  } catch (error) {
    await at.directory.close();
    throw error;
  }
}
