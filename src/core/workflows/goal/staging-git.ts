/**
 * A staging copy's own git folder, so a parallel /goal step can run `git status` and `git diff`
 * against its changes without any way to change the real repository: a fresh `.git` in the copy
 * holding a copy of the real HEAD, refs, index and ignore list, a minimal config of our own (no
 * driver, hook or alias of the real one) and the real object store as a read-only *alternate* —
 * git never writes into an alternate, new objects (`git add`, `git commit`) land in the copy's own
 * store, and the sandbox binds the real store read-only. Nothing is written into the real `.git`.
 */
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { repositoryGitDirs } from '../../safety/git-dirs.js';
import { isInside } from '../../safety/real-path.js';

/** What the staging's git reads outside the copy: the real object stores, to be bound read-only. */
export interface StagingGit {
  readOnly: string[];
}

/** Core settings that change what git reports (not what it runs), copied when they are plain tokens. */
const COPIED_SETTINGS: ReadonlySet<string> = new Set([
  'core.repositoryformatversion',
  'core.filemode',
  'core.symlinks',
  'core.ignorecase',
  'core.precomposeunicode',
  'core.autocrlf',
  'core.eol',
  'extensions.objectformat',
]);
const PLAIN_VALUE = /^[A-Za-z0-9_.-]+$/;
const HEAD_PATTERN = /^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/;
/** `sharedindex.<hash>` files of a split index, read with `index`. */
const SHARED_INDEX = /^sharedindex\.[0-9a-f]+$/;

/**
 * Makes `<stagingRoot>/.git` from the repository of `realWorkspace`; undefined (and no `.git`) when
 * the workspace has no usable repository of its own: none, a HEAD git could not read, or git
 * folders outside the workspace (which the sandbox never shows).
 */
export async function createStagingGit(realWorkspace: string, stagingRoot: string): Promise<StagingGit | undefined> {
  const dirs = repositoryGitDirs(realWorkspace);
  if (!dirs?.gitDir || !dirs.commonDir) return undefined;
  const gitDir = await fs.realpath(dirs.gitDir);
  const commonDir = await fs.realpath(dirs.commonDir);
  if (!isInside(realWorkspace, gitDir) || !isInside(realWorkspace, commonDir)) return undefined;
  const head = await readOptional(path.join(gitDir, 'HEAD'));
  const objects = path.join(commonDir, 'objects');
  if (head === undefined || !HEAD_PATTERN.test(head) || !(await isFolder(objects))) return undefined;

  const target = path.join(stagingRoot, '.git');
  await fs.mkdir(path.join(target, 'objects', 'info'), { recursive: true });
  await fs.mkdir(path.join(target, 'refs', 'heads'), { recursive: true });
  await fs.mkdir(path.join(target, 'info'), { recursive: true });
  await fs.writeFile(path.join(target, 'HEAD'), head);
  await fs.writeFile(path.join(target, 'config'), stagingConfig((await readOptional(path.join(commonDir, 'config'))) ?? ''));
  await copyRegularFiles(path.join(commonDir, 'refs'), path.join(target, 'refs'));
  for (const name of ['packed-refs', 'shallow']) await copyIfPresent(path.join(commonDir, name), path.join(target, name));
  await copyIfPresent(path.join(gitDir, 'index'), path.join(target, 'index'));
  for (const name of await fs.readdir(gitDir)) if (SHARED_INDEX.test(name)) await copyIfPresent(path.join(gitDir, name), path.join(target, name));
  await copyIfPresent(path.join(commonDir, 'info', 'exclude'), path.join(target, 'info', 'exclude'));

  // A store the real one borrows from outside the workspace is not shown (the sandbox shows only the workspace).
  const stores = [objects, ...(await alternatesOf(objects))].filter((store) => isInside(realWorkspace, store));
  await fs.writeFile(path.join(target, 'objects', 'info', 'alternates'), `${stores.join('\n')}\n`);
  return { readOnly: stores };
}

/**
 * Adds lines to the staging's `info/exclude`: the dependency links and the inbox copy are the
 * harness's, not the step's (a `node_modules/` rule in `.gitignore` matches a folder, not a link).
 */
export async function excludeInStagingGit(stagingRoot: string, relativePaths: readonly string[]): Promise<void> {
  if (relativePaths.length === 0) return;
  const lines = relativePaths.map((relative) => `/${relative.split(path.sep).join('/')}`);
  await fs.appendFile(path.join(stagingRoot, '.git', 'info', 'exclude'), `\n# linked or copied read-only by TSUKA\n${lines.join('\n')}\n`);
}

/**
 * A config of our own with the real one's format settings only: the real config's filters, diff
 * drivers, hooks path, aliases and includes never reach the copy (and so cannot make SAFE git run a program).
 */
export function stagingConfig(realConfig: string): string {
  const settings = new Map<string, string>([
    ['core.repositoryformatversion', '0'],
    ['core.bare', 'false'],
  ]);
  let section: string | undefined;
  for (const raw of realConfig.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]/.exec(line);
    if (header) {
      // A subsection (`[remote "origin"]`) is none of ours.
      section = line.includes('"') ? undefined : header[1]!.toLowerCase();
      continue;
    }
    const pair = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*"?([^"#;]*?)"?\s*(?:[#;].*)?$/.exec(line);
    if (!section || !pair) continue;
    const key = `${section}.${pair[1]!.toLowerCase()}`;
    if (COPIED_SETTINGS.has(key) && PLAIN_VALUE.test(pair[2]!)) settings.set(key, pair[2]!);
  }
  const sections = new Map<string, string[]>();
  for (const [key, value] of settings) {
    const [name, ...rest] = key.split('.');
    sections.set(name!, [...(sections.get(name!) ?? []), `\t${rest.join('.')} = ${value}`]);
  }
  return [...sections].map(([name, lines]) => `[${name}]\n${lines.join('\n')}\n`).join('');
}

/** The object stores the real store borrows from (`objects/info/alternates`), as absolute real paths. */
async function alternatesOf(objects: string): Promise<string[]> {
  const text = await readOptional(path.join(objects, 'info', 'alternates'));
  if (text === undefined) return [];
  const stores: string[] = [];
  for (const line of text.split('\n')) {
    const entry = line.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    const real = await fs.realpath(path.resolve(objects, entry)).catch(() => undefined);
    if (real !== undefined) stores.push(real);
  }
  return stores;
}

/** Copies the regular files of a folder tree (refs); links and anything else are left out. */
async function copyRegularFiles(from: string, to: string): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(from, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await fs.mkdir(to, { recursive: true });
  for (const entry of entries) {
    if (entry.isDirectory()) await copyRegularFiles(path.join(from, entry.name), path.join(to, entry.name));
    else if (entry.isFile()) await fs.copyFile(path.join(from, entry.name), path.join(to, entry.name), constants.COPYFILE_EXCL);
  }
}

async function copyIfPresent(from: string, to: string): Promise<void> {
  try {
    if ((await fs.lstat(from)).isFile()) await fs.copyFile(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function isFolder(folder: string): Promise<boolean> {
  return (await fs.stat(folder).catch(() => undefined))?.isDirectory() === true;
}
