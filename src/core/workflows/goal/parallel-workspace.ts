/**
 * Staging copies for parallel /goal steps. Each branch works on a copy of the CURRENT workspace
 * (the original's staging started empty, design §6.6), and its changes are found by comparing the
 * copy with the manifest taken when it was made.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { TsukaError } from '../../errors.js';
import { isInside } from '../../safety/real-path.js';
import { createWorkspace } from '../../safety/workspace-jail.js';
import type { Workspace } from '../../tools/tool.js';
import { readStagingBase, saveStagingBase, stagingBasePath } from './staging-base.js';
import { createStagingGit, excludeInStagingGit } from './staging-git.js';
import { copyInboxIntoStaging } from './staging-inbox.js';
import { readManifest, STAGING_DEPENDENCY_FOLDERS, symlinkTarget, walkTree, type Manifest, type ManifestEntry, type TreeEntry } from './workspace-manifest.js';

/** One path a branch added, modified or deleted, with its new entry (none for a deletion). */
export interface FileChange {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  entry?: ManifestEntry;
}

/**
 * A branch's private copy of the workspace. The wiring gives a parallel step `workspace` as its
 * tool workspace and `root` as `services.cwd`, so its file tools AND its commands stay in the copy.
 */
export interface Staging {
  /** The copy's folder (its realpath). */
  readonly root: string;
  /** The jail over `root`. */
  readonly workspace: Workspace;
  /** A path-safe name for the branch, used for the conflict-copy folder. */
  readonly label: string;
  /** What the workspace held when the copy was made, in the workspace's terms. */
  readonly base: ReadonlyMap<string, ManifestEntry>;
  /** Symlinks not copied because they lead outside the workspace. */
  readonly skippedLinks: readonly string[];
  /**
   * Real-workspace folders the copy reaches through links or its git's alternates (dependency
   * folders, the object store): also `workspace.sharedReadOnly`, bound read-only by the sandbox.
   */
  readonly sharedReadOnly: readonly string[];
  /** Changes made in the copy since it was made. */
  diff(): Promise<FileChange[]>;
  /** Removes the copy's folder. */
  cleanup(): Promise<void>;
}

const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A label made path-safe: `step 2 @geordi` → `step-2-geordi`. */
export function stagingLabel(text: string): string {
  const label = text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|-+$/g, '');
  return label === '' ? 'branch' : label.slice(0, 80);
}

/**
 * Copies the workspace into `stagingRoot/label`, skipping `.git`, `.tsuka` (but its chat inbox,
 * copied read-only: `staging-inbox.ts`) and the dependency folders. Symlinks stay symlinks
 * (re-pointed at the copy); links leading outside the workspace are not copied. Each dependency
 * folder becomes a link to the workspace's own (read-only in the sandbox), and the copy gets a git
 * folder of its own over the real objects (`staging-git.ts`), so a step can run the project's
 * tests and `git diff`.
 */
export async function createStaging(workspaceRoot: string, stagingRoot: string, label: string, options: { signal?: AbortSignal } = {}): Promise<Staging> {
  if (!LABEL_PATTERN.test(label)) {
    throw new TsukaError('staging_label_invalid', `The staging label "${label}" may hold only letters, digits, "_", "." and "-".`);
  }
  const realWorkspace = await fs.realpath(workspaceRoot);
  await fs.mkdir(stagingRoot, { recursive: true });
  const realStagingRoot = await fs.realpath(stagingRoot);
  if (isInside(realStagingRoot, realWorkspace)) {
    throw new TsukaError('staging_root_invalid', 'The staging folder must not contain the workspace.');
  }
  const target = path.join(realStagingRoot, label);
  // A leftover from a crashed run would mix old files into the copy.
  await fs.rm(target, { recursive: true, force: true });
  await fs.rm(stagingBasePath(realStagingRoot, label), { force: true });
  await fs.mkdir(target);

  let base: Manifest;
  let copied: CopiedTree;
  let sharedReadOnly: string[];
  try {
    copied = await copyTree(realWorkspace, target, [realStagingRoot], options.signal);
    const inbox = await copyInboxIntoStaging(realWorkspace, target, options.signal);
    const git = await createStagingGit(realWorkspace, target);
    if (git) await excludeInStagingGit(target, [...copied.dependencyLinks, ...(inbox ? [inbox] : [])]);
    sharedReadOnly = [...copied.dependencyLinks.map((relative) => path.join(realWorkspace, relative)), ...(git?.readOnly ?? [])];
    base = await readManifest(target, { signal: options.signal });
    await saveStagingBase(realStagingRoot, label, base);
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true });
    await fs.rm(stagingBasePath(realStagingRoot, label), { force: true });
    if (error instanceof TsukaError) throw error;
    throw new TsukaError('staging_failed', `The workspace could not be copied for branch "${label}".`, { cause: error });
  }
  const workspace: Workspace = { ...(await createWorkspace(target)), sharedReadOnly };
  return stagingOver(workspace, realStagingRoot, label, base, { skippedLinks: copied.skippedLinks, sharedReadOnly });
}

/**
 * A copy an earlier process made and left (a branch that finished before a restart), with the base
 * saved beside it; undefined when the copy or its base is gone — its changes cannot be merged then.
 */
export async function reopenStaging(stagingRoot: string, label: string): Promise<Staging | undefined> {
  if (!LABEL_PATTERN.test(label)) return undefined;
  const realStagingRoot = await fs.realpath(stagingRoot).catch(() => undefined);
  if (!realStagingRoot) return undefined;
  const target = path.join(realStagingRoot, label);
  const info = await fs.lstat(target).catch(() => undefined);
  const base = info?.isDirectory() ? await readStagingBase(realStagingRoot, label) : undefined;
  if (!base) return undefined;
  return stagingOver(await createWorkspace(target), realStagingRoot, label, base, { skippedLinks: [], sharedReadOnly: [] });
}

function stagingOver(
  workspace: Workspace,
  stagingRoot: string,
  label: string,
  base: Manifest,
  extra: Pick<Staging, 'skippedLinks' | 'sharedReadOnly'>,
): Staging {
  return {
    root: workspace.root,
    workspace,
    label,
    base,
    ...extra,
    async diff() {
      return diffManifests(base, await readManifest(workspace.root));
    },
    async cleanup() {
      await fs.rm(workspace.root, { recursive: true, force: true });
      await fs.rm(stagingBasePath(stagingRoot, label), { force: true });
    },
  };
}

/** Added, modified and deleted paths from `before` to `after`, sorted by path. */
export function diffManifests(before: ReadonlyMap<string, ManifestEntry>, after: ReadonlyMap<string, ManifestEntry>): FileChange[] {
  const changes: FileChange[] = [];
  for (const [filePath, entry] of after) {
    const previous = before.get(filePath);
    if (previous === undefined) changes.push({ path: filePath, kind: 'added', entry });
    else if (previous !== entry) changes.push({ path: filePath, kind: 'modified', entry });
  }
  for (const filePath of before.keys()) {
    if (!after.has(filePath)) changes.push({ path: filePath, kind: 'deleted' });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

interface CopiedTree {
  skippedLinks: string[];
  /** Dependency folders linked to the workspace's own, relative to the root. */
  dependencyLinks: string[];
}

async function copyTree(from: string, to: string, excluded: readonly string[], signal: AbortSignal | undefined): Promise<CopiedTree> {
  const skippedLinks: string[] = [];
  const dependencies: string[] = [];
  const onSkippedFolder = (entry: TreeEntry) => {
    if (STAGING_DEPENDENCY_FOLDERS.has(path.basename(entry.relativePath))) dependencies.push(entry.relativePath);
  };
  for await (const entry of walkTree(from, { excluded, signal, onSkippedFolder })) {
    const destination = path.join(to, entry.relativePath);
    if (entry.kind === 'dir') {
      await fs.mkdir(destination, { recursive: true });
    } else if (entry.kind === 'file') {
      await fs.copyFile(entry.absolutePath, destination);
    } else {
      const target = await symlinkTarget(from, entry.absolutePath);
      if (!target.inside) {
        skippedLinks.push(entry.relativePath);
        continue;
      }
      // Relative, so the copy's link leads to the copy's file, not back into the workspace.
      await fs.symlink(path.relative(path.dirname(destination), path.join(to, target.relativeTarget)) || '.', destination);
    }
  }
  // Absolute, so the link leads to the workspace's folder wherever the copy is; never merged back (skipped by name).
  for (const relative of dependencies) await fs.symlink(path.join(from, relative), path.join(to, relative));
  return { skippedLinks, dependencyLinks: dependencies };
}
