import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Folders no search or scan should descend into. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

export interface WalkedFile {
  absolutePath: string;
  size: number;
}

/**
 * Depth-first walk in name order. Symbolic links are never followed: a link could lead out of
 * the workspace jail, and following them would need a realpath check per entry.
 */
export async function* walkFiles(start: string, options: { signal?: AbortSignal; skipDirectories?: ReadonlySet<string> } = {}): AsyncGenerator<WalkedFile> {
  const skip = options.skipDirectories ?? SKIPPED_DIRECTORIES;
  const startStats = await stat(start);
  if (startStats.isFile()) {
    yield { absolutePath: start, size: startStats.size };
    return;
  }
  const pending: string[] = [start];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      // An unreadable folder (permissions) is skipped so one bad folder does not end the search.
      if (isAccessError(error)) continue;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const absolutePath = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) subdirectories.push(absolutePath);
      } else if (entry.isFile()) {
        const size = await stat(absolutePath).then(
          (stats) => stats.size,
          () => -1,
        );
        if (size >= 0) yield { absolutePath, size };
      }
    }
    // Reversed onto the stack so the first folder by name is walked next.
    pending.push(...subdirectories.reverse());
  }
}

function isAccessError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM';
}
