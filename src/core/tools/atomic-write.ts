import { randomBytes } from 'node:crypto';
import { chmod, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes through a temp file in the same directory and renames it over the target, so a crash
 * or an abort never leaves a half-written file. Keeps the mode of a file it replaces.
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
