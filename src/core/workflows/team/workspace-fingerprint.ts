import { createHash } from 'node:crypto';
import { readManifest } from '../goal/workspace-manifest.js';

/**
 * One hash over every file and symlink under `root` (path and content hash), skipping the folders
 * staging skips (`.git`, `.tsuka`, the dependency folders): two equal fingerprints mean the workspace did
 * not change in between.
 */
export async function workspaceFingerprint(root: string, signal?: AbortSignal): Promise<string> {
  const manifest = await readManifest(root, signal ? { signal } : {});
  const hash = createHash('sha256');
  for (const [relativePath, entry] of [...manifest].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${relativePath}\0${entry}\n`);
  return hash.digest('hex');
}
