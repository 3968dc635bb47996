/**
 * The names of the submodules a repository declares, read where git itself reads them: the
 * worktree's `.gitmodules` when that file exists, else the one in the index, else the one in HEAD.
 * Git takes `submodule.<name>.ignore` from the repository's config first and `.gitmodules` second,
 * so pinning `submodule.<name>.ignore=all` for each of these names at command scope keeps git out
 * of every submodule, whatever `.gitmodules` says (see git-env.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Reading takes milliseconds; a git that hangs must not hold a command. */
const GIT_READ_TIMEOUT_MS = 5_000;

export class SubmoduleListError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SubmoduleListError';
  }
}

function git(args: readonly string[], root: string, env: NodeJS.ProcessEnv, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd: root, env, encoding: 'utf8', timeout: GIT_READ_TIMEOUT_MS }, (error, stdout) => {
      if (error) reject(new SubmoduleListError(`git ${args[0]} could not read the submodule list: ${error.message}`, { cause: error }));
      else resolve(stdout);
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** The object id of the first of `:.gitmodules` and `HEAD:.gitmodules` that exists, with one git run. */
async function gitmodulesBlob(root: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const output = await git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], root, env, ':.gitmodules\nHEAD:.gitmodules\n');
  for (const line of output.split('\n')) {
    const [oid, type] = line.split(' ');
    if (type === 'blob' && oid !== undefined) return oid;
  }
  return undefined;
}

/** `submodule.<name>.<key>` → name (git prints the section lower-case, the name as written). */
export function submoduleNamesIn(keys: readonly string[]): string[] {
  const names = new Set<string>();
  for (const key of keys) {
    const last = key.lastIndexOf('.');
    if (key.startsWith('submodule.') && last > 'submodule.'.length) names.add(key.slice('submodule.'.length, last));
  }
  return [...names];
}

/**
 * The submodule names `.gitmodules` declares for the repository at `root`, read by git with `env`
 * (which must pin the git folder). Empty without `.git` or `.gitmodules`. Throws
 * SubmoduleListError when git cannot read them.
 */
export async function declaredSubmoduleNames(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!existsSync(join(root, '.git'))) return [];
  const file = join(root, '.gitmodules');
  let source: string[];
  if (existsSync(file)) {
    source = ['--file', file];
  } else {
    const blob = await gitmodulesBlob(root, env);
    if (blob === undefined) return [];
    source = ['--blob', blob];
  }
  const output = await git(['config', ...source, '--list', '--name-only', '-z'], root, env);
  return submoduleNamesIn(output.split('\0').filter((key) => key !== ''));
}
