/**
 * Where a repository's git folders really are, and whether a path lies in one. `.git` may be a
 * folder, a gitfile (`gitdir: <path>`, as in submodules and linked worktrees) or a link, and a git
 * folder may name a `commondir` that holds the shared config and objects; git follows all of them,
 * so the checks that keep the repository's config from running programs must follow them too.
 */
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isInside, realpathAllowMissingSync } from './real-path.js';

export const GIT_FOLDER_WRITE_REASON =
  'It changes files inside a git folder (.git/ or one that a gitfile names), where config and hooks can make git run programs.';

/** The git folders of the repository whose worktree is `worktree`. */
export interface GitDirs {
  /** The folder `.git` leads to; undefined when a gitfile is malformed (git refuses the repository then). */
  gitDir: string | undefined;
  /** The folder holding the shared config (`commondir`), or `gitDir` itself. */
  commonDir: string | undefined;
  /** `.git` is a real folder without `commondir`: its `config` is the repository's whole local config. */
  plainFolder: boolean;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** What git reads from a gitfile: the path after `gitdir: `, trailing line ends and spaces removed. */
function gitfileTarget(file: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  if (!text.startsWith('gitdir: ')) return undefined;
  const target = text.slice('gitdir: '.length).replace(/\s+$/, '');
  return target === '' ? undefined : resolve(dirname(file), target);
}

function commonDirOf(gitDir: string): string | undefined {
  try {
    const text = readFileSync(join(gitDir, 'commondir'), 'utf8').replace(/[\r\n]+$/, '');
    return resolve(gitDir, text);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The git folders `<worktree>/.git` leads to, or undefined when there is no `.git`. Throws when
 * they cannot be read (the caller then cannot vouch for the repository's config).
 */
export function repositoryGitDirs(worktree: string): GitDirs | undefined {
  const dotGit = join(worktree, '.git');
  let link: ReturnType<typeof lstatSync>;
  try {
    link = lstatSync(dotGit);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const target = link.isSymbolicLink() ? statSync(dotGit) : link;
  const gitDir = target.isDirectory() ? (link.isSymbolicLink() ? realpathSync(dotGit) : dotGit) : target.isFile() ? gitfileTarget(dotGit) : undefined;
  const common = gitDir === undefined ? undefined : commonDirOf(gitDir);
  return { gitDir, commonDir: common ?? gitDir, plainFolder: link.isDirectory() && common === undefined };
}

/** Whether `folder` has what git needs to take it for a git folder: `HEAD` with `objects/` or `commondir`, or `objects/` with `refs/`. */
export function looksLikeGitDir(folder: string): boolean {
  const has = (name: string): boolean => existsSync(join(folder, name));
  if (has('HEAD') && (has('objects') || has('commondir'))) return true;
  return has('objects') && has('refs') && has('config');
}

function realOrSelf(target: string): string {
  try {
    return realpathAllowMissingSync(target);
  } catch {
    // A link loop cannot lead into a git folder that git itself would use.
    return target;
  }
}

/**
 * Why writing `target` (an absolute path in the workspace whose real root is `realRoot`) changes a
 * git folder, or undefined when it does not: a path through a folder named `.git`, into the folders
 * the workspace repository's `.git` leads to (a gitfile's `gitdir`, its `commondir`), or through any
 * folder below the root that looks like a git folder (a submodule's, or one a gitfile elsewhere names).
 */
export function gitFolderWriteReason(realRoot: string, target: string): string | undefined {
  const real = realOrSelf(target);
  if (!isInside(realRoot, real)) return undefined;
  let dirs: GitDirs | undefined;
  try {
    dirs = repositoryGitDirs(realRoot);
  } catch {
    // An unreadable .git cannot be shown to be elsewhere: anything written could be its config.
    return GIT_FOLDER_WRITE_REASON;
  }
  for (const folder of [dirs?.gitDir, dirs?.commonDir]) {
    if (folder !== undefined && isInside(realOrSelf(folder), real)) return GIT_FOLDER_WRITE_REASON;
  }
  const segments = relative(realRoot, real)
    .split(sep)
    .filter((segment) => segment !== '');
  let folder = realRoot;
  for (const segment of segments) {
    folder = join(folder, segment);
    if (segment.toLowerCase() === '.git' || looksLikeGitDir(folder)) return GIT_FOLDER_WRITE_REASON;
  }
  return undefined;
}
