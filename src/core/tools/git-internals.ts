/**
 * Writes inside `.git/` are DANGEROUS whatever the tool: a repository's config (`core.fsmonitor`,
 * `diff.external`, filters) and hooks make later SAFE commands such as `git status` run programs.
 */
import { sep } from 'node:path';
import type { CallRisk, RiskLevel, ToolContext } from './tool.js';

export const GIT_INTERNALS_REASON = 'it changes files inside .git/, where config and hooks can make git run programs';

export function touchesGitInternals(relativePath: string): boolean {
  return relativePath.split(/[\\/]/).some((segment) => segment.toLowerCase() === '.git');
}

/** The risk of writing `path`: `base` normally, DANGEROUS inside `.git/` (or for a path outside the jail). */
export async function writeRisk(context: ToolContext, path: string, base: { level: RiskLevel; reason: string }): Promise<CallRisk> {
  let relative: string;
  try {
    relative = context.workspace.relative(await context.workspace.resolve(path));
  } catch {
    // The tool itself refuses paths outside the workspace; asking first costs nothing.
    return { level: 'DANGEROUS', reason: 'the path is outside the workspace' };
  }
  if (touchesGitInternals(relative.split(sep).join('/'))) return { level: 'DANGEROUS', reason: GIT_INTERNALS_REASON };
  return base;
}
