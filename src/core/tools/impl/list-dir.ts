import { lstat, readdir } from 'node:fs/promises';
import { formatBytes } from '../format-bytes.js';
import type { BeneathDirectory } from '../../safety/open-beneath.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { openFolderBeneath, statBeneath } from '../workspace-files.js';
import { displayPath } from '../workspace-paths.js';

/** Entries listed before the output says how many more there are. */
export const LIST_DIR_MAX_ENTRIES = 500;

export type ListDirInput = { path?: string };

/** `list_dir`: folders first (with `/`), then files with sizes, each group sorted by name. */
export const listDirTool: ToolImplementation<ListDirInput> = {
  name: 'list_dir',

  preview: (input) => ({ summary: `list_dir ${input.path ?? '.'}` }),

  async execute(input, context) {
    const absolutePath = await context.workspace.resolve(input.path ?? '.');
    const shown = displayPath(context.workspace, absolutePath);
    const stats = await statBeneath(context.workspace, absolutePath);
    if (!stats) throw new ToolFailureError(`${shown} does not exist.`);
    if (!stats.isDirectory()) throw new ToolFailureError(`${shown} is a file, not a folder; use read_file to read it.`);
    // Listed through the folder's descriptor: a swap of the path after the check lists nothing else.
    const folder = await openFolderBeneath(context.workspace, absolutePath);
    if (!folder) throw new ToolFailureError(`${shown} does not exist.`);
    try {
      return await listFolder(folder, shown);
    } finally {
      await folder.close();
    }
  },
};

async function listFolder(folder: BeneathDirectory, shown: string): Promise<{ output: string; display: string }> {
  const entries = await readdir(folder.self, { withFileTypes: true });
  const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const folders = entries.filter((entry) => entry.isDirectory()).sort(byName);
  const others = entries.filter((entry) => !entry.isDirectory()).sort(byName);
  const shownEntries = [...folders, ...others].slice(0, LIST_DIR_MAX_ENTRIES);
  const lines: string[] = [];
  for (const entry of shownEntries) {
    if (entry.isDirectory()) lines.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) lines.push(`${entry.name}@ (link)`);
    else {
      const size = await lstat(folder.entry(entry.name)).then(
        (entryStats) => formatBytes(entryStats.size),
        () => '?',
      );
      lines.push(`${entry.name}  ${size}`);
    }
  }
  const count = `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`;
  const note =
    entries.length > LIST_DIR_MAX_ENTRIES ? `\n[showing the first ${LIST_DIR_MAX_ENTRIES} of ${entries.length} entries; list a subfolder to see more]` : '';
  const body = lines.length > 0 ? lines.join('\n') : '(empty)';
  return { output: `${shown === '.' ? './' : `${shown}/`} (${count})\n${body}${note}`, display: count };
}
