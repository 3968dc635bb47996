import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceEscapeError } from '../../../src/core/errors.js';
import { createWorkspace, isInside } from '../../../src/core/safety/workspace-jail.js';
import type { Workspace } from '../../../src/core/tools/tool.js';

let base: string;
let outside: string;
let workspace: Workspace;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-jail-')));
  outside = path.join(base, 'outside');
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  workspace = await createWorkspace(path.join(base, 'workspace', 'nested'));
  await fs.writeFile(path.join(workspace.root, 'inside.txt'), 'ok');
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function expectEscape(requested: string): Promise<void> {
  await expect(workspace.resolve(requested)).rejects.toBeInstanceOf(WorkspaceEscapeError);
}

describe('createWorkspace', () => {
  it('creates a missing root and stores its realpath', async () => {
    const stat = await fs.stat(workspace.root);
    expect(stat.isDirectory()).toBe(true);
    expect(workspace.root).toBe(await fs.realpath(path.join(base, 'workspace', 'nested')));
  });

  it('stores the real root when the given root is a symlink', async () => {
    const alias = path.join(base, 'alias');
    await fs.symlink(workspace.root, alias);
    const viaAlias = await createWorkspace(alias);
    expect(viaAlias.root).toBe(workspace.root);
    expect(await viaAlias.resolve(path.join(alias, 'inside.txt'))).toBe(path.join(workspace.root, 'inside.txt'));
  });
});

describe('Workspace.resolve', () => {
  it('resolves relative paths against the root', async () => {
    expect(await workspace.resolve('inside.txt')).toBe(path.join(workspace.root, 'inside.txt'));
    expect(await workspace.resolve('.')).toBe(workspace.root);
    expect(await workspace.resolve('a/../inside.txt')).toBe(path.join(workspace.root, 'inside.txt'));
  });

  it('accepts an absolute path inside the root', async () => {
    const absolute = path.join(workspace.root, 'inside.txt');
    expect(await workspace.resolve(absolute)).toBe(absolute);
  });

  it('accepts a new file in a new subdirectory', async () => {
    expect(await workspace.resolve('new/dir/file.ts')).toBe(path.join(workspace.root, 'new', 'dir', 'file.ts'));
  });

  it('rejects `..` escapes', async () => {
    await expectEscape('../outside.txt');
    await expectEscape('sub/../../../outside/secret.txt');
    await expectEscape('..');
  });

  it('rejects absolute paths outside the root', async () => {
    await expectEscape(path.join(outside, 'secret.txt'));
    await expectEscape('/etc/passwd');
  });

  it('rejects a symlinked file pointing outside', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(workspace.root, 'link.txt'));
    await expectEscape('link.txt');
  });

  it('rejects paths through a symlinked directory pointing outside, existing or not', async () => {
    await fs.symlink(outside, path.join(workspace.root, 'linkdir'));
    await expectEscape('linkdir');
    await expectEscape('linkdir/secret.txt');
    await expectEscape('linkdir/new/file.txt');
  });

  it('rejects a dangling symlink whose target would be outside', async () => {
    await fs.symlink(path.join(outside, 'not-yet.txt'), path.join(workspace.root, 'dangling'));
    await expectEscape('dangling');
    await fs.symlink(path.join(outside, 'missing-dir'), path.join(workspace.root, 'dangling-dir'));
    await expectEscape('dangling-dir/file.txt');
  });

  it('allows symlinks that stay inside the workspace', async () => {
    await fs.mkdir(path.join(workspace.root, 'real'));
    await fs.symlink(path.join(workspace.root, 'real'), path.join(workspace.root, 'alias'));
    expect(await workspace.resolve('alias/file.txt')).toBe(path.join(workspace.root, 'real', 'file.txt'));
  });

  it('rejects symlink loops and NUL bytes', async () => {
    await fs.symlink(path.join(workspace.root, 'loop-b'), path.join(workspace.root, 'loop-a'));
    await fs.symlink(path.join(workspace.root, 'loop-a'), path.join(workspace.root, 'loop-b'));
    await expectEscape('loop-a/file');
    await expectEscape('inside.txt\0.png');
  });

  it('shows paths relative to the root', () => {
    expect(workspace.relative(path.join(workspace.root, 'src', 'a.ts'))).toBe(path.join('src', 'a.ts'));
    expect(workspace.relative(workspace.root)).toBe('.');
  });
});

describe('isInside', () => {
  it('compares whole path segments', () => {
    expect(isInside('/w/root', '/w/root')).toBe(true);
    expect(isInside('/w/root', '/w/root/a/b')).toBe(true);
    expect(isInside('/w/root', '/w/root/..foo')).toBe(true);
    expect(isInside('/w/root', '/w/root-sibling')).toBe(false);
    expect(isInside('/w/root', '/w/root/../x')).toBe(false);
    expect(isInside('/w/root', '/w')).toBe(false);
  });
});
