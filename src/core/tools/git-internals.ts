/**
 * Writes into a git folder are DANGEROUS whatever the tool: a repository's config
 * (`core.fsmonitor`, `diff.external`, filters) and hooks make later SAFE commands such as
 * `git status` run programs. A git folder is `.git/`, the folder a gitfile names (`gitdir: gd`),
 * its `commondir`, or any folder in the workspace that looks like one (a submodule's, a moved one).
 */
import { sep } from 'node:path';
import { GIT_FOLDER_WRITE_REASON, gitFolderWriteReason } from '../safety/git-dirs.js';
import type { CallRisk, RiskLevel, ToolContext } from './tool.js';

export const GIT_INTERNALS_REASON = GIT_FOLDER_WRITE_REASON;

export function touchesGitInternals(relativePath: string): boolean {
  return relativePath.split(/[\\/]/).some((segment) => segment.toLowerCase() === '.git');
}

/** The risk of writing `path`: `base` normally, DANGEROUS inside a git folder (or for a path outside the jail). */
export async function writeRisk(context: ToolContext, path: string, base: { level: RiskLevel; reason: string }): Promise<CallRisk> {
  let absolute: string;
  try {
    absolute = await context.workspace.resolve(path);
  } catch {
    // The tool itself refuses paths outside the workspace; asking first costs nothing.
    return { level: 'DANGEROUS', reason: 'the path is outside the workspace' };
  }
  if (touchesGitInternals(context.workspace.relative(absolute).split(sep).join('/'))) return { level: 'DANGEROUS', reason: GIT_INTERNALS_REASON };
  const reason = gitFolderWriteReason(context.workspace.root, absolute);
  return reason ? { level: 'DANGEROUS', reason } : base;
}
