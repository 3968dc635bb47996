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
import { prepareBeforeCommands } from '../../safety/command-preparation.js';
import { readStagingBase, saveStagingBase, stagingBasePath, type SavedBase } from './staging-base.js';
import { fillStaging, makePrivate, sharedInodes, type StagingMode } from './staging-copy.js';
import { diffStaging, type FileChange } from './staging-diff.js';
import { createStagingGit, excludeInStagingGit } from './staging-git.js';
import { copyInboxIntoStaging } from './staging-inbox.js';
import type { ManifestEntry } from './workspace-manifest.js';

export type { FileChange } from './staging-diff.js';
export type { StagingMode } from './staging-copy.js';

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
  /**
   * What the workspace held when the copy was made: a file's stamp (`stamp:…`, compared with the
   * workspace's file without reading it), a link's target; `file:<sha256>` in a base saved before stamps.
   */
  readonly base: ReadonlyMap<string, ManifestEntry>;
  /** How the files were made (`staging-copy.ts`); undefined for a copy reopened from an old base. */
  readonly mode: StagingMode | undefined;
  /** Symlinks not copied because they lead outside the workspace. */
  readonly skippedLinks: readonly string[];
  /**
   * Real-workspace folders the copy reaches through links or its git's alternates (dependency
   * folders, the object store): also `workspace.sharedReadOnly`, bound read-only by the sandbox.
   */
  readonly sharedReadOnly: readonly string[];
  /** Changes made in the copy since it was made; only files written since are read. */
  diff(): Promise<FileChange[]>;
  /**
   * Gives every file still shared with the workspace (a hard link) a private copy; `runCommand`
   * calls it before the first command in the copy. A no-op for a reflinked or copied staging.
   */
  prepareForCommands(): Promise<void>;
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
 * Makes the workspace's staging area at `stagingRoot/label` without copying where it can
 * (`staging-copy.ts`: reflinks, else hard links made private before a command, else copies),
 * skipping `.git`, `.tsuka` (but its chat inbox, copied read-only: `staging-inbox.ts`) and the dependency folders. Symlinks stay symlinks (re-pointed at the
 * copy); links leading outside the workspace are not copied. Each dependency folder becomes a link
 * to the workspace's own (read-only in the sandbox), and the copy gets a git folder of its own over
 * the real objects (`staging-git.ts`), so a step can run the project's tests and `git diff`.
 */
export async function createStaging(
  workspaceRoot: string,
  stagingRoot: string,
  label: string,
  options: { signal?: AbortSignal; mode?: StagingMode } = {},
): Promise<Staging> {
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

  let saved: SavedBase;
  let skippedLinks: string[];
  let sharedReadOnly: string[];
  try {
    const tree = await fillStaging(realWorkspace, target, {
      excluded: [realStagingRoot],
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.mode ? { wanted: options.mode } : {}),
    });
    // Absolute, so the link leads to the workspace's folder wherever the copy is; never merged back (skipped by name).
    for (const relative of tree.dependencies) await fs.symlink(path.join(realWorkspace, relative), path.join(target, relative));
    const inbox = await copyInboxIntoStaging(realWorkspace, target, options.signal);
    const git = await createStagingGit(realWorkspace, target);
    if (git) await excludeInStagingGit(target, [...tree.dependencies, ...(inbox ? [inbox] : [])]);
    sharedReadOnly = [...tree.dependencies.map((relative) => path.join(realWorkspace, relative)), ...(git?.readOnly ?? [])];
    skippedLinks = tree.skippedLinks;
    saved = { base: tree.base, stamps: tree.stamps, workspaceRoot: realWorkspace, mode: tree.mode };
    await saveStagingBase(realStagingRoot, label, saved);
  } catch (error) {
    await fs.rm(target, { recursive: true, force: true });
    await fs.rm(stagingBasePath(realStagingRoot, label), { force: true });
    if (error instanceof TsukaError) throw error;
    throw new TsukaError('staging_failed', `The workspace could not be copied for branch "${label}".`, { cause: error });
  }
  const workspace: Workspace = { ...(await createWorkspace(target)), sharedReadOnly, linkedFiles: saved.mode === 'hardlink' };
  return stagingOver(workspace, realStagingRoot, label, saved, { skippedLinks, sharedReadOnly });
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
  const saved = info?.isDirectory() ? await readStagingBase(realStagingRoot, label) : undefined;
  if (!saved) return undefined;
  const workspace: Workspace = { ...(await createWorkspace(target)), linkedFiles: saved.mode === 'hardlink' };
  return stagingOver(workspace, realStagingRoot, label, saved, { skippedLinks: [], sharedReadOnly: [] });
}

function stagingOver(
  workspace: Workspace,
  stagingRoot: string,
  label: string,
  saved: SavedBase,
  extra: Pick<Staging, 'skippedLinks' | 'sharedReadOnly'>,
): Staging {
  const { base, stamps } = saved;
  let privateFiles: Promise<void> | undefined;
  const makeFilesPrivate = async (): Promise<void> => {
    await makePrivate(workspace.root, sharedInodes(base, stamps), stamps);
    // The moved stamps are saved, so a Resume still diffs without reading.
    await saveStagingBase(stagingRoot, label, saved);
  };
  const prepareForCommands = (): Promise<void> => {
    if (saved.mode !== 'hardlink') return Promise.resolve();
    privateFiles ??= makeFilesPrivate().catch((error: unknown) => {
      privateFiles = undefined; // the next command tries again; this one is refused
      throw error;
    });
    return privateFiles;
  };
  const unregister = saved.mode === 'hardlink' ? prepareBeforeCommands(workspace.root, prepareForCommands) : () => {};
  return {
    root: workspace.root,
    workspace,
    label,
    base,
    mode: saved.mode,
    ...extra,
    diff: () => diffStaging(workspace.root, base, stamps, saved.workspaceRoot),
    prepareForCommands,
    async cleanup() {
      unregister();
      await fs.rm(workspace.root, { recursive: true, force: true });
      await fs.rm(stagingBasePath(stagingRoot, label), { force: true });
    },
  };
}
