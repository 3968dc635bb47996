/**
 * What a step changed in its staging area, found by stamps (issue 42): a file whose stamp is the
 * one noted when the staging was made was not written and is not read; only a file written since
 * (or new) is hashed. Metadata calls run synchronously in short batches, as in `staging-copy.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { entryAt, fileStamp, hashFile, STAGING_SKIPPED_DIRECTORIES, stampAt, symlinkEntry, type ManifestEntry } from './workspace-manifest.js';

/** One path a branch added, modified or deleted, with its new entry (none for a deletion). */
export interface FileChange {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  entry?: ManifestEntry;
}

const BATCH = 256;

/**
 * Changes in the staging at `root` since it was made: `base` is the workspace's entries then,
 * `stamps` the staging's own file stamps then (empty for a base saved before stamps: every file is
 * then hashed and compared with the base's hash). `workspaceRoot`, when known, lets a file rewritten
 * with its old content count as unchanged (the workspace's file, still as it was, is hashed to see).
 */
export async function diffStaging(
  root: string,
  base: ReadonlyMap<string, ManifestEntry>,
  stamps: ReadonlyMap<string, string>,
  workspaceRoot?: string,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  const seen = new Set<string>();
  const pending: string[] = [''];
  let handled = 0;
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
      if (STAGING_SKIPPED_DIRECTORIES.has(entry.name)) continue;
      const relative = folder === '' ? entry.name : path.join(folder, entry.name);
      if (entry.isDirectory()) {
        pending.push(relative);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      seen.add(relative);
      const change = await changeAt(root, relative, entry.isFile(), base.get(relative), stamps.get(relative), workspaceRoot);
      if (change) changes.push(change);
      handled += 1;
      if (handled % BATCH === 0) await nextTurn();
    }
  }
  for (const relative of base.keys()) if (!seen.has(relative)) changes.push({ path: relative, kind: 'deleted' });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function changeAt(
  root: string,
  relative: string,
  isFile: boolean,
  before: ManifestEntry | undefined,
  stamp: string | undefined,
  workspaceRoot: string | undefined,
): Promise<FileChange | undefined> {
  const absolute = path.join(root, relative);
  if (isFile && stamp !== undefined && fileStamp(fs.lstatSync(absolute, { bigint: true })) === stamp) return undefined;
  const entry = isFile ? `file:${await hashFile(absolute)}` : await symlinkEntry(root, absolute);
  if (before === undefined) return { path: relative, kind: 'added', entry };
  if (before === entry) return undefined;
  if (isFile && before.startsWith('stamp:') && workspaceRoot !== undefined && (await stampAt(workspaceRoot, relative)) === before) {
    // The workspace's file is still the base: its content tells whether this one really changed.
    if ((await entryAt(workspaceRoot, relative)) === entry) return undefined;
  }
  return { path: relative, kind: 'modified', entry };
}
