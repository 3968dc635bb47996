import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceEscapeError } from '../../../src/core/errors.js';
import {
  assertDescriptorInside,
  type BeneathEntry,
  DESCRIPTOR_PATHS_AVAILABLE,
  openDirectoryBeneath,
  openParentBeneath,
} from '../../../src/core/safety/open-beneath.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { openFileBeneath } from '../../../src/core/tools/workspace-files.js';

let base: string;
let root: string;
let outside: string;
const opened: BeneathEntry[] = [];

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-beneath-')));
  root = path.join(base, 'workspace');
  outside = path.join(base, 'outside');
  await fs.mkdir(path.join(root, 'real', 'deep'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(root, 'real', 'deep', 'file.txt'), 'inside');
  await fs.writeFile(path.join(outside, 'file.txt'), 'outside');
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((entry) => entry.directory.close()));
  await fs.rm(base, { recursive: true, force: true });
});

async function walk(relative: string, options: { followFinal?: boolean; createFolders?: boolean } = {}): Promise<BeneathEntry> {
  const entry = await openParentBeneath(root, path.join(root, relative), { followFinal: options.followFinal ?? true, ...options });
  opened.push(entry);
  return entry;
}

async function contentOf(entry: BeneathEntry): Promise<string> {
  return fs.readFile(entry.directory.entry(entry.name), 'utf8');
}

async function expectEscape(relative: string, options: { followFinal?: boolean } = {}): Promise<void> {
  await expect(walk(relative, options)).rejects.toBeInstanceOf(WorkspaceEscapeError);
}

describe.skipIf(!DESCRIPTOR_PATHS_AVAILABLE)('openParentBeneath (descriptor walk; needs /proc/self/fd)', () => {
  it('opens the parent of a plain path and names the entry in it', async () => {
    const entry = await walk('real/deep/file.txt');
    expect(entry.name).toBe('file.txt');
    expect(entry.path).toBe(path.join(root, 'real', 'deep', 'file.txt'));
    expect(await contentOf(entry)).toBe('inside');
  });

  it('follows a link in the middle that stays inside, relative or absolute, to where it leads', async () => {
    await fs.symlink('real', path.join(root, 'relative-alias'));
    await fs.symlink(path.join(root, 'real', 'deep'), path.join(root, 'absolute-alias'));
    expect((await walk('relative-alias/deep/file.txt')).path).toBe(path.join(root, 'real', 'deep', 'file.txt'));
    expect(await contentOf(await walk('absolute-alias/file.txt'))).toBe('inside');
  });

  it('takes `..` in a link against the folders walked, and refuses one that climbs above the root', async () => {
    await fs.symlink('../real', path.join(root, 'real', 'up'));
    expect((await walk('real/up/deep/file.txt')).path).toBe(path.join(root, 'real', 'deep', 'file.txt'));
    await fs.symlink('../../outside', path.join(root, 'real', 'climb'));
    await expectEscape('real/climb/file.txt');
  });

  it('refuses a link in the middle that leads outside, relative or absolute', async () => {
    await fs.symlink('../outside', path.join(root, 'relative-out'));
    await fs.symlink(outside, path.join(root, 'absolute-out'));
    await expectEscape('relative-out/file.txt');
    await expectEscape('absolute-out/file.txt');
    await expectEscape('absolute-out/new/file.txt');
  });

  it('refuses an absolute path outside the root and a link loop', async () => {
    await expect(openParentBeneath(root, path.join(outside, 'file.txt'), { followFinal: true })).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await fs.symlink('loop-b', path.join(root, 'loop-a'));
    await fs.symlink('loop-a', path.join(root, 'loop-b'));
    await expectEscape('loop-a/file.txt');
  });

  it('follows a link at the end only when asked, and only inside', async () => {
    await fs.symlink(path.join(root, 'real', 'deep', 'file.txt'), path.join(root, 'inside-link'));
    await fs.symlink(path.join(outside, 'file.txt'), path.join(root, 'outside-link'));
    const followed = await walk('inside-link');
    expect([followed.path, await contentOf(followed)]).toEqual([path.join(root, 'real', 'deep', 'file.txt'), 'inside']);
    await expectEscape('outside-link');
    // Not followed: the link itself is the entry (delete_file removes links, not their targets).
    const itself = await walk('outside-link', { followFinal: false });
    expect([itself.name, (await fs.lstat(itself.directory.entry(itself.name))).isSymbolicLink()]).toEqual(['outside-link', true]);
  });

  it('answers ENOTDIR at once when a file stands where a folder should be', async () => {
    await expect(walk('real/deep/file.txt/below')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('names the root itself with an empty name', async () => {
    const entry = await walk('.');
    expect([entry.name, entry.path]).toEqual(['', root]);
  });

  it('creates missing folders when asked, and answers ENOENT otherwise', async () => {
    await expect(walk('new/sub/file.txt')).rejects.toMatchObject({ code: 'ENOENT' });
    const entry = await walk('new/sub/file.txt', { createFolders: true });
    expect((await fs.stat(path.join(root, 'new', 'sub'))).isDirectory()).toBe(true);
    expect(entry.name).toBe('file.txt');
  });

  it('keeps addressing the folder it opened when the path is swapped for a link afterwards', async () => {
    const entry = await walk('real/deep/file.txt');
    await fs.rename(path.join(root, 'real'), path.join(root, 'parked'));
    await fs.symlink(outside, path.join(root, 'real'));
    expect(await contentOf(entry)).toBe('inside');
  });

  it('finds an open folder moved out of the workspace by its descriptor', async () => {
    const folder = await openDirectoryBeneath(root, path.join(root, 'real', 'deep'));
    try {
      await assertDescriptorInside(root, folder.self, 'real/deep');
      await fs.rename(path.join(root, 'real', 'deep'), path.join(outside, 'moved'));
      await expect(assertDescriptorInside(root, folder.self, 'real/deep')).rejects.toBeInstanceOf(WorkspaceEscapeError);
    } finally {
      await folder.close();
    }
  });
});

describe.skipIf(!DESCRIPTOR_PATHS_AVAILABLE)('openFileBeneath', () => {
  it('refuses a fifo without opening it (it would block the reader)', async () => {
    const workspace = await createWorkspace(root);
    try {
      execFileSync('mkfifo', [path.join(root, 'pipe')]);
    } catch (error) {
      // mkfifo is part of coreutils; without it there is no fifo to test.
      expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
      return;
    }
    await expect(openFileBeneath(workspace, path.join(root, 'pipe'))).rejects.toThrow('is not a regular file');
  });

  it('opens a regular file and a folder, and answers undefined for a missing one', async () => {
    const workspace = await createWorkspace(root);
    const file = await openFileBeneath(workspace, path.join(root, 'real', 'deep', 'file.txt'));
    const folder = await openFileBeneath(workspace, path.join(root, 'real'));
    try {
      expect([file?.stats.isFile(), folder?.stats.isDirectory()]).toEqual([true, true]);
      expect(await file?.handle.readFile('utf8')).toBe('inside');
    } finally {
      await file?.handle.close();
      await folder?.handle.close();
    }
    expect(await openFileBeneath(workspace, path.join(root, 'missing.txt'))).toBeUndefined();
  });
});
