/**
 * Merging parallel branches back into the workspace. Nothing is overwritten on a conflict: the
 * workspace's file stays as it is and every branch's version is saved for a person to decide.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createWorkspace } from '../../safety/workspace-jail.js';
import type { Workspace } from '../../tools/tool.js';
import type { FileChange, Staging } from './parallel-workspace.js';
import { entryAt, stampAt, type ManifestEntry } from './workspace-manifest.js';

/** Where each branch's version of a conflicting file is saved, under the workspace root. */
export const CONFLICTS_FOLDER = path.join('.tsuka', 'conflicts');

export interface MergeConflict {
  path: string;
  /** Labels of the branches that changed the path. */
  branches: string[];
  /** Workspace-relative paths of the saved branch versions (none for a branch that deleted the file). */
  savedCopies: string[];
  /** `branches-differ`: two branches changed it differently; `workspace-changed`: it changed in the workspace meanwhile. */
  reason: 'branches-differ' | 'workspace-changed';
}

export interface MergeReport {
  /** Paths written or deleted in the workspace (or already as the branches left them). */
  applied: string[];
  conflicts: MergeConflict[];
  /** Changes that could not be applied, with the reason (a link leading outside, an unwritable path). */
  skipped: { path: string; branches: string[]; reason: string }[];
}

interface BranchChange {
  staging: Staging;
  change: FileChange;
}

/**
 * Applies every branch's changes to the workspace. A path changed by two branches differently, or
 * changed in the workspace since the branch's copy was made, is a conflict; identical changes are not.
 */
export async function mergeStagings(workspaceRoot: string, stagings: readonly Staging[]): Promise<MergeReport> {
  const workspace = await createWorkspace(workspaceRoot);
  const byPath = new Map<string, BranchChange[]>();
  for (const staging of stagings) {
    for (const change of await staging.diff()) {
      const list = byPath.get(change.path) ?? [];
      list.push({ staging, change });
      byPath.set(change.path, list);
    }
  }
  const report: MergeReport = { applied: [], conflicts: [], skipped: [] };
  for (const filePath of [...byPath.keys()].sort()) {
    const changes = byPath.get(filePath) as BranchChange[];
    const branches = changes.map((item) => item.staging.label);
    const current = await entryAt(workspace.root, filePath);
    const outcomes = new Set(changes.map((item) => item.change.entry ?? 'deleted'));
    const wanted = changes[0]?.change.entry;
    const alreadyThere = outcomes.size === 1 && current === wanted;
    const workspaceChanged = !alreadyThere && !(await everyBaseHolds(workspace.root, filePath, current, changes));
    if (outcomes.size > 1 || workspaceChanged) {
      const reason = outcomes.size > 1 ? 'branches-differ' : 'workspace-changed';
      const savedCopies: string[] = [];
      try {
        await saveCopies(workspace, changes, savedCopies);
      } catch (error) {
        report.skipped.push({ path: filePath, branches, reason: `a branch's version could not be saved: ${describe(error)}` });
      }
      report.conflicts.push({ path: filePath, branches, savedCopies, reason });
      continue;
    }
    if (alreadyThere) {
      report.applied.push(filePath);
      continue;
    }
    const problem = await apply(workspace, changes[0] as BranchChange);
    if (problem) report.skipped.push({ path: filePath, branches, reason: problem });
    else report.applied.push(filePath);
  }
  return report;
}

/** A short chat summary of a merge. */
export function formatMergeReport(report: MergeReport): string {
  if (report.applied.length === 0 && report.conflicts.length === 0 && report.skipped.length === 0) {
    return 'Merge: the parallel steps changed no file.';
  }
  const lines: string[] = [];
  if (report.applied.length > 0) lines.push(`Merged ${report.applied.length} change(s): ${report.applied.join(', ')}`);
  if (report.conflicts.length > 0) {
    lines.push(`⚠ ${report.conflicts.length} conflict(s) — not written; the workspace's version is untouched:`);
    for (const conflict of report.conflicts) {
      const why = conflict.reason === 'branches-differ' ? 'changed differently by' : 'changed in the workspace meanwhile; branch';
      const copies = conflict.savedCopies.length > 0 ? ` — saved: ${conflict.savedCopies.join(', ')}` : '';
      lines.push(`  • ${conflict.path} (${why} ${conflict.branches.join(', ')})${copies}`);
    }
  }
  for (const skipped of report.skipped) lines.push(`✖ ${skipped.path} not merged (${skipped.branches.join(', ')}): ${skipped.reason}`);
  return lines.join('\n');
}

// Returns why the change could not be applied, or undefined once it is.
async function apply(workspace: Workspace, { staging, change }: BranchChange): Promise<string | undefined> {
  let destination: string;
  try {
    // The parent is jailed; the last component is not followed, so a link is replaced, not written through.
    destination = path.join(await workspace.resolve(path.dirname(change.path)), path.basename(change.path));
  } catch (error) {
    return describe(error);
  }
  try {
    if (change.kind === 'deleted') {
      await fs.rm(destination, { force: true });
      return undefined;
    }
    const entry = change.entry ?? '';
    if (entry.startsWith('link-outside:')) return 'it is a symlink that leads outside the workspace';
    await fs.mkdir(path.dirname(destination), { recursive: true });
    const temporary = `${destination}.tsuka-merge-${randomUUID()}`;
    if (entry.startsWith('link:')) {
      const target = path.join(workspace.root, entry.slice('link:'.length));
      await fs.symlink(path.relative(path.dirname(destination), target) || '.', temporary);
    } else {
      await fs.copyFile(path.join(staging.root, change.path), temporary);
    }
    try {
      await fs.rename(temporary, destination);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
    return undefined;
  } catch (error) {
    return describe(error);
  }
}

// Fills `saved` as it goes, so the report lists what was saved even when a later copy fails.
async function saveCopies(workspace: Workspace, changes: readonly BranchChange[], saved: string[]): Promise<void> {
  for (const { staging, change } of changes) {
    if (change.kind === 'deleted') continue;
    const relative = path.join(CONFLICTS_FOLDER, staging.label, change.path);
    const destination = await workspace.resolve(relative);
    await fs.mkdir(path.dirname(destination), { recursive: true });
    const entry = change.entry ?? '';
    if (entry.startsWith('link')) {
      // A link is saved as a note of where it leads, never as a live link.
      await fs.writeFile(destination, `symlink to ${await fs.readlink(path.join(staging.root, change.path))}\n`);
    } else {
      await fs.copyFile(path.join(staging.root, change.path), destination);
    }
    saved.push(relative);
  }
}

/**
 * Whether the workspace still holds, at `filePath`, what each branch's copy was made from: a
 * stamped base is compared with the file's stamp (not read; a file touched but not changed counts
 * as changed, which saves the branch's version instead of writing it), an older base with `current`.
 */
async function everyBaseHolds(root: string, filePath: string, current: ManifestEntry | undefined, changes: readonly BranchChange[]): Promise<boolean> {
  let stamp: ManifestEntry | undefined;
  for (const { staging } of changes) {
    const base = staging.base.get(filePath);
    if (base?.startsWith('stamp:')) {
      stamp ??= await stampAt(root, filePath);
      if (stamp !== base) return false;
    } else if (base !== current) {
      return false;
    }
  }
  return true;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
