/**
 * What a workspace repository's own config (`.git/config`, its includes, `config.worktree`)
 * names that would make git run a program. Read with git itself, so includes and every syntax
 * git accepts are understood exactly as git will understand them when the command runs.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type GitDirs, repositoryGitDirs } from './git-dirs.js';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
/** Reading a config takes milliseconds; a git that hangs must not hold a classification. */
const GIT_CONFIG_TIMEOUT_MS = 5_000;
const REPOSITORY_SCOPES: ReadonlySet<string> = new Set(['local', 'worktree']);

/** Keys that run a program and cannot be switched off by a command-scope value. */
const UNNEUTRALISABLE = [/^diff\.external$/, /^diff\..+\.command$/];

function configArguments(): string[] {
  return ['config', '--list', '--show-scope', '--name-only', '-z'];
}

/** Only the repository's own scopes: the operator's global config is trusted, the system's unread. */
function configEnv(root: string, path: string | undefined): NodeJS.ProcessEnv {
  return {
    GIT_DIR: join(root, '.git'),
    GIT_CEILING_DIRECTORIES: dirname(root),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    ...(path !== undefined ? { PATH: path } : {}),
  };
}

function parseKeys(output: string): string[] {
  const fields = output.split('\0');
  const keys: string[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    if (REPOSITORY_SCOPES.has(fields[index] as string)) keys.push(fields[index + 1] as string);
  }
  return keys;
}

/**
 * The last reading per repository, valid while its config files are the very same files: same
 * inode, size and change time (a command can set a file's modification time back, not its change
 * time). Kept only when `.git` is a real folder of its own: behind a gitfile, a link or a
 * `commondir` the config lives elsewhere and is read every time. A config that includes other
 * files is never kept (those files could change unseen).
 */
const readings = new Map<string, { stamp: string; keys: string[] }>();
const MAX_READINGS = 256;

function fileStamp(file: string): string {
  try {
    const info = statSync(file, { bigint: true });
    return `${info.ino}:${info.size}:${info.ctimeNs}`;
  } catch {
    return '-';
  }
}

/** The stamp of the repository's config files, or undefined when they must be read every time. */
function configStamp(root: string): string | undefined {
  let dirs: GitDirs | undefined;
  try {
    dirs = repositoryGitDirs(root);
  } catch {
    return undefined;
  }
  if (!dirs?.plainFolder) return undefined;
  const gitDir = join(root, '.git');
  // The folder by inode only: git changes its entries (index.lock) on every run; another folder put in its place has another inode.
  const folder = statSync(gitDir, { bigint: true, throwIfNoEntry: false })?.ino ?? '-';
  return [String(folder), fileStamp(join(gitDir, 'config')), fileStamp(join(gitDir, 'config.worktree'))].join('|');
}

function remember(root: string, path: string | undefined, stamp: string | undefined, keys: string[]): string[] {
  if (stamp === undefined) return keys;
  if (keys.some((key) => key.startsWith('include.') || key.startsWith('includeif.'))) return keys;
  if (readings.size >= MAX_READINGS) readings.delete(readings.keys().next().value as string);
  readings.set(`${root}\0${path ?? ''}`, { stamp, keys });
  return keys;
}

function recalled(root: string, path: string | undefined, stamp: string | undefined): string[] | undefined {
  if (stamp === undefined) return undefined;
  const reading = readings.get(`${root}\0${path ?? ''}`);
  return reading?.stamp === stamp ? reading.keys : undefined;
}

/**
 * The config keys set by the repository at `root` (lower-case section and key names, as git
 * reports them); empty when there is no `.git`. Throws when git cannot read them. Asked again
 * while the config files are unchanged, it answers from the last reading without running git.
 */
export function repositoryConfigKeysSync(root: string, path?: string): string[] {
  if (!existsSync(join(root, '.git'))) return [];
  const stamp = configStamp(root);
  const known = recalled(root, path, stamp);
  if (known) return known;
  const output = execFileSync('git', configArguments(), {
    cwd: root,
    env: configEnv(root, path),
    encoding: 'utf8',
    timeout: GIT_CONFIG_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return remember(root, path, stamp, parseKeys(output));
}

/** As `repositoryConfigKeysSync`, without blocking. */
export async function repositoryConfigKeys(root: string, path?: string): Promise<string[]> {
  if (!existsSync(join(root, '.git'))) return [];
  const stamp = configStamp(root);
  const known = recalled(root, path, stamp);
  if (known) return known;
  const { stdout } = await execFileAsync('git', configArguments(), { cwd: root, env: configEnv(root, path), encoding: 'utf8', timeout: GIT_CONFIG_TIMEOUT_MS });
  return remember(root, path, stamp, parseKeys(stdout));
}

/** The keys among `keys` that would run a program whatever the command scope says (`diff.external`). */
export function unneutralisableKeys(keys: readonly string[]): string[] {
  return keys.filter((key) => UNNEUTRALISABLE.some((pattern) => pattern.test(key)));
}

/** Driver names whose `filter.<name>.*` or `diff.<name>.textconv` the repository defines. */
export function configuredDrivers(keys: readonly string[]): { filters: string[]; textconvs: string[] } {
  const filters = new Set<string>();
  const textconvs = new Set<string>();
  for (const key of keys) {
    const filter = /^filter\.(.+)\.[^.]+$/.exec(key);
    if (filter) filters.add(filter[1] as string);
    const textconv = /^diff\.(.+)\.textconv$/.exec(key);
    if (textconv) textconvs.add(textconv[1] as string);
  }
  return { filters: [...filters], textconvs: [...textconvs] };
}
