/**
 * Symlink-aware path resolution for paths that may not exist yet: every existing component is
 * resolved with realpath, and a dangling symlink is followed to where it points, so a new file
 * "inside" a link to `/etc` is seen as being in `/etc`.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Symlink hops before giving up, like the kernel's ELOOP limit. */
const MAX_SYMLINK_HOPS = 40;

/** Whether `candidate` is `root` or below it (both absolute; compared after normalisation). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(candidate));
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

class SymlinkLoopError extends Error {
  constructor(target: string) {
    super(`Too many symbolic links while resolving "${target}".`);
  }
}

/** Async: the real location `absolutePath` refers to, even if its last components do not exist. */
export async function realpathAllowMissing(absolutePath: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new SymlinkLoopError(absolutePath);
  try {
    return await fs.promises.realpath(absolutePath);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = path.dirname(absolutePath);
  if (parent === absolutePath) return absolutePath;
  const realParent = await realpathAllowMissing(parent, hops);
  const joined = path.join(realParent, path.basename(absolutePath));
  let stats: fs.Stats;
  try {
    stats = await fs.promises.lstat(joined);
  } catch (error) {
    if (isMissing(error)) return joined;
    throw error;
  }
  if (!stats.isSymbolicLink()) return joined;
  const target = await fs.promises.readlink(joined);
  return realpathAllowMissing(path.resolve(realParent, target), hops + 1);
}

/** Sync twin of {@link realpathAllowMissing}, for the synchronous command classifier. */
export function realpathAllowMissingSync(absolutePath: string, hops = 0): string {
  if (hops > MAX_SYMLINK_HOPS) throw new SymlinkLoopError(absolutePath);
  try {
    return fs.realpathSync(absolutePath);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = path.dirname(absolutePath);
  if (parent === absolutePath) return absolutePath;
  const realParent = realpathAllowMissingSync(parent, hops);
  const joined = path.join(realParent, path.basename(absolutePath));
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(joined);
  } catch (error) {
    if (isMissing(error)) return joined;
    throw error;
  }
  if (!stats.isSymbolicLink()) return joined;
  return realpathAllowMissingSync(path.resolve(realParent, fs.readlinkSync(joined)), hops + 1);
}
