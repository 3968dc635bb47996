/**
 * Whether a channel's workspace is one other channels work in too (issue 35): the default
 * workspace is shared by every channel the `channels` section does not map; a mapped folder is
 * shared when it is, contains or lies inside the default workspace or another entry's folder. A
 * DANGEROUS call there touches other people's files, wherever it was asked.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ChannelPolicy } from '../../core/scopes/channel-policy.js';

const overlaps = (a: string, b: string): boolean => {
  const inside = (outer: string, inner: string) => {
    const relative = path.relative(outer, inner);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  };
  return inside(a, b) || inside(b, a);
};

/** The folder as it is on disk (symlinks followed), or as written when it does not exist yet. */
const resolved = (folder: string): Promise<string> => realpath(folder).catch(() => path.resolve(folder));

export type WorkspaceSharing = (policy: ChannelPolicy | undefined, root: string) => Promise<boolean>;

export function createWorkspaceSharing(policies: readonly ChannelPolicy[], defaultRoot: string): WorkspaceSharing {
  const folders = new Map<string, Promise<string>>();
  const folderOf = (folder: string) => {
    let found = folders.get(folder);
    if (!found) {
      found = resolved(folder);
      folders.set(folder, found);
    }
    return found;
  };
  return async (policy, root) => {
    if (!policy?.workspace) return true;
    const others = await Promise.all(policies.filter((other) => other !== policy && other.workspace).map((other) => folderOf(other.workspace!)));
    return [await resolved(defaultRoot), ...others].some((other) => overlaps(other, root));
  };
}
