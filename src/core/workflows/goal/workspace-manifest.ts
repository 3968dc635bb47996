/**
 * Content manifests of a folder tree: one comparable string per path, so a staging copy and the
 * real workspace can be compared entry by entry without keeping file contents in memory.
 */
import { createHash } from 'node:crypto';
import { type BigIntStats, createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside, realpathAllowMissing } from '../../safety/real-path.js';

/**
 * `file:<sha256>`, `link:<target relative to the tree root>` for a link that stays inside the tree,
 * `link-outside:<raw target>` for one that does not, or `dir`; a staging's base holds `stamp:…`
 * for its files instead (see `fileStamp`).
 */
export type ManifestEntry = string;

/** Path (relative to the tree root) → entry. Folders are not listed, only what they hold. */
export type Manifest = Map<string, ManifestEntry>;

/**
 * Dependency folders a staging copy does not copy but reaches read-only (a link to the workspace's
 * own folder, bound read-only by the sandbox), so a parallel step can run the project's tests:
 * `node_modules` (npm, pnpm, yarn) and `.venv` (Python; its scripts name the venv's absolute path,
 * so only the original works). Not `vendor` (Go keeps edited source there) nor `target` (builds
 * write into it): those are copied like any folder.
 */
export const STAGING_DEPENDENCY_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.venv']);

/**
 * Names never copied into a staging area nor merged back, whatever they are (folder, link, gitfile):
 * VCS data (a staging copy gets its own `.git`, see `staging-git.ts`), dependencies (linked, see
 * above), and `.tsuka`, the harness's own files (conflict copies, created tools; its chat inbox is
 * copied into a staging copy on its own, `staging-inbox.ts`, and never merged back either).
 */
export const STAGING_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '.tsuka', ...STAGING_DEPENDENCY_FOLDERS]);

export interface TreeEntry {
  relativePath: string;
  absolutePath: string;
  kind: 'file' | 'symlink' | 'dir';
}

export interface WalkOptions {
  /** Absolute folders not walked (a staging area that lives inside the workspace). */
  excluded?: readonly string[];
  signal?: AbortSignal;
  /** Told of each real folder skipped by name (`STAGING_SKIPPED_DIRECTORIES`). */
  onSkippedFolder?: (entry: TreeEntry) => void;
}

/**
 * Walks `root` without following symlinks, skipping every entry named in `STAGING_SKIPPED_DIRECTORIES`
 * and the absolute folders in `excluded`. Sockets and devices are ignored.
 */
export async function* walkTree(root: string, options: WalkOptions = {}): AsyncGenerator<TreeEntry> {
  const excluded = new Set((options.excluded ?? []).map((folder) => path.resolve(folder)));
  const pending: string[] = [''];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const folder = pending.pop() as string;
    const entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relativePath = folder === '' ? entry.name : path.join(folder, entry.name);
      const absolutePath = path.join(root, relativePath);
      if (STAGING_SKIPPED_DIRECTORIES.has(entry.name)) {
        if (entry.isDirectory()) options.onSkippedFolder?.({ relativePath, absolutePath, kind: 'dir' });
        continue;
      }
      if (entry.isDirectory()) {
        if (excluded.has(absolutePath)) continue;
        yield { relativePath, absolutePath, kind: 'dir' };
        pending.push(relativePath);
      } else if (entry.isSymbolicLink()) {
        yield { relativePath, absolutePath, kind: 'symlink' };
      } else if (entry.isFile()) {
        yield { relativePath, absolutePath, kind: 'file' };
      }
    }
  }
}

/** The manifest of every file and symlink under `root`. */
export async function readManifest(root: string, options: { excluded?: readonly string[]; signal?: AbortSignal } = {}): Promise<Manifest> {
  const manifest: Manifest = new Map();
  for await (const entry of walkTree(root, options)) {
    if (entry.kind === 'file') manifest.set(entry.relativePath, await fileEntry(entry.absolutePath));
    else if (entry.kind === 'symlink') manifest.set(entry.relativePath, await symlinkEntry(root, entry.absolutePath));
  }
  return manifest;
}

/** The entry at one path right now, or undefined when nothing is there. Symlinks are not followed. */
export async function entryAt(root: string, relativePath: string): Promise<ManifestEntry | undefined> {
  const absolutePath = path.join(root, relativePath);
  let stats;
  try {
    stats = await fs.lstat(absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (stats.isSymbolicLink()) return symlinkEntry(root, absolutePath);
  if (stats.isDirectory()) return 'dir';
  if (stats.isFile()) return fileEntry(absolutePath);
  return `other:${stats.mode}`;
}

/** Where a symlink under `root` really leads: inside the tree (relative to it), or outside. */
export async function symlinkTarget(root: string, linkPath: string): Promise<{ inside: true; relativeTarget: string } | { inside: false; rawTarget: string }> {
  const rawTarget = await fs.readlink(linkPath);
  const realRoot = await fs.realpath(root);
  let real: string;
  try {
    real = await realpathAllowMissing(path.resolve(path.dirname(linkPath), rawTarget));
  } catch {
    // A link loop cannot be shown to stay inside, so it counts as pointing outside (and is never copied).
    return { inside: false, rawTarget };
  }
  if (!isInside(realRoot, real)) return { inside: false, rawTarget };
  return { inside: true, relativeTarget: path.relative(realRoot, real) };
}

/**
 * A file's stamp, `stamp:<dev>:<inode>:<size>:<mtime ns>`: equal stamps mean the file was not
 * written (a write moves the mtime; a replacement is a new inode), so it is compared without being
 * read. The ctime is left out: linking the same file into another staging moves it.
 */
export function fileStamp(stats: BigIntStats): ManifestEntry {
  return `stamp:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}

/** The stamp of the file at `relativePath`, 'missing' when there is none, `other` when it is no file. */
export async function stampAt(root: string, relativePath: string): Promise<ManifestEntry> {
  try {
    const stats = await fs.lstat(path.join(root, relativePath), { bigint: true });
    return stats.isFile() ? fileStamp(stats) : 'other';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

/** The sha256 of a file's content, read as a stream. */
export async function hashFile(absolutePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolutePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function fileEntry(absolutePath: string): Promise<ManifestEntry> {
  return `file:${await hashFile(absolutePath)}`;
}

export async function symlinkEntry(root: string, absolutePath: string): Promise<ManifestEntry> {
  const target = await symlinkTarget(root, absolutePath);
  return target.inside ? `link:${target.relativeTarget}` : `link-outside:${target.rawTarget}`;
}
