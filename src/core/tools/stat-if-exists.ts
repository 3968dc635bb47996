import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';

/** `stat` (or `lstat`) that answers undefined for a missing path and throws anything else. */
export async function statIfExists(absolutePath: string, options: { followLinks?: boolean } = {}): Promise<Stats | undefined> {
  try {
    return await (options.followLinks === false ? lstat(absolutePath) : stat(absolutePath));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
