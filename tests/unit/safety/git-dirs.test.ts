import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looksLikeGitDir, repositoryGitDirs } from '../../../src/core/safety/git-dirs.js';
import { submoduleNamesIn } from '../../../src/core/safety/git-submodules.js';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'tsuka-git-dirs-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function worktree(name: string, dotGit: (root: string) => Promise<void>): Promise<string> {
  const root = path.join(base, name);
  await mkdir(root);
  await dotGit(root);
  return root;
}

describe('repositoryGitDirs follows .git the way git does', () => {
  it('a plain .git folder is the only one whose config may be remembered', async () => {
    const root = await worktree('plain', (r) => mkdir(path.join(r, '.git')));
    expect(repositoryGitDirs(root)).toEqual({ gitDir: path.join(root, '.git'), commonDir: path.join(root, '.git'), plainFolder: true });
    expect(repositoryGitDirs(path.join(base, 'nothing-here'))).toBeUndefined();
  });

  it('a gitfile leads to its gitdir (relative to the file) and on to its commondir', async () => {
    const root = await worktree('gitfile', async (r) => {
      await mkdir(path.join(r, 'admin'));
      await writeFile(path.join(r, 'admin', 'commondir'), '../shared\r\n');
      await writeFile(path.join(r, '.git'), 'gitdir: admin \n');
    });
    expect(repositoryGitDirs(root)).toEqual({ gitDir: path.join(root, 'admin'), commonDir: path.join(root, 'shared'), plainFolder: false });
  });

  it('a folder with commondir, a link and a malformed gitfile are never plain', async () => {
    const common = await worktree('common', async (r) => {
      await mkdir(path.join(r, '.git'));
      await writeFile(path.join(r, '.git', 'commondir'), '/elsewhere\n');
    });
    expect(repositoryGitDirs(common)).toMatchObject({ commonDir: '/elsewhere', plainFolder: false });
    const linked = await worktree('linked', (r) => symlink(path.join(common, '.git'), path.join(r, '.git')));
    expect(repositoryGitDirs(linked)?.plainFolder).toBe(false);
    const malformed = await worktree('malformed', (r) => writeFile(path.join(r, '.git'), 'gitdir:no-space\n'));
    expect(repositoryGitDirs(malformed)).toEqual({ gitDir: undefined, commonDir: undefined, plainFolder: false });
  });

  it('looksLikeGitDir: HEAD with objects or commondir; not an ordinary folder', async () => {
    const folder = await worktree('looks', async (r) => {
      await writeFile(path.join(r, 'HEAD'), 'ref: refs/heads/main\n');
    });
    expect(looksLikeGitDir(folder)).toBe(false);
    await writeFile(path.join(folder, 'commondir'), '..\n');
    expect(looksLikeGitDir(folder)).toBe(true);
  });
});

it('submoduleNamesIn keeps the name as git prints it, dots and spaces included', () => {
  expect(submoduleNamesIn(['submodule.sub.path', 'submodule.sub.ignore', 'submodule.a.b c.url', 'core.bare', 'submodule.noname'])).toEqual(['sub', 'a.b c']);
});
