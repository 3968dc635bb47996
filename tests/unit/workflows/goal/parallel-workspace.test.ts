import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TsukaError, WorkspaceEscapeError } from '../../../../src/core/errors.js';
import { formatMergeReport, mergeStagings } from '../../../../src/core/workflows/goal/merge-stagings.js';
import { writeFileBeneath } from '../../../../src/core/tools/atomic-write.js';
import { createStaging, stagingLabel, type Staging } from '../../../../src/core/workflows/goal/parallel-workspace.js';

let base: string;
let workspaceRoot: string;
let stagingRoot: string;
let outside: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-goal-staging-')));
  workspaceRoot = path.join(base, 'workspace');
  stagingRoot = path.join(base, 'staging');
  outside = path.join(base, 'outside');
  await fs.mkdir(path.join(workspaceRoot, 'src'), { recursive: true });
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fs.writeFile(path.join(workspaceRoot, 'README.md'), 'hello\n');
  await fs.writeFile(path.join(workspaceRoot, 'src', 'app.ts'), 'export const app = 1;\n');
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/**
 * A branch writes as a step does, through the file tools' write (a file is replaced, never written
 * in place): a staging's files may be hard links to the workspace's (issue 42).
 */
async function writeInStaging(staging: Staging, relative: string, content: string): Promise<void> {
  await writeFileBeneath(staging.workspace, path.join(staging.root, relative), content);
}

const read = (root: string, relative: string): Promise<string> => fs.readFile(path.join(root, relative), 'utf8');
const exists = (target: string): Promise<boolean> =>
  fs.lstat(target).then(
    () => true,
    () => false,
  );

describe('createStaging', () => {
  it('copies the current workspace, so a branch sees existing files (design §6.6)', async () => {
    const staging = await createStaging(workspaceRoot, stagingRoot, 'branch-a');
    expect(staging.root).toBe(path.join(stagingRoot, 'branch-a'));
    expect(await read(staging.root, 'src/app.ts')).toBe('export const app = 1;\n');
    expect(await fs.readFile(await staging.workspace.resolve('README.md'), 'utf8')).toBe('hello\n');
    expect(await staging.diff()).toEqual([]);
  });

  it('copies neither .git nor node_modules: a .git git cannot read is left out, node_modules becomes a link to the original', async () => {
    await fs.mkdir(path.join(workspaceRoot, '.git', 'objects'), { recursive: true });
    await fs.writeFile(path.join(workspaceRoot, '.git', 'HEAD'), 'ref');
    await fs.mkdir(path.join(workspaceRoot, 'node_modules', 'x'), { recursive: true });
    await fs.writeFile(path.join(workspaceRoot, 'node_modules', 'x', 'index.js'), '');
    await fs.mkdir(path.join(workspaceRoot, 'src', '.venv'));
    const staging = await createStaging(workspaceRoot, stagingRoot, 'branch-a');
    expect(await exists(path.join(staging.root, '.git'))).toBe(false);
    expect(await fs.readlink(path.join(staging.root, 'node_modules'))).toBe(path.join(workspaceRoot, 'node_modules'));
    expect(await fs.readlink(path.join(staging.root, 'src', '.venv'))).toBe(path.join(workspaceRoot, 'src', '.venv'));
    expect(staging.sharedReadOnly).toEqual([path.join(workspaceRoot, 'node_modules'), path.join(workspaceRoot, 'src', '.venv')]);
    expect(staging.workspace.sharedReadOnly).toEqual(staging.sharedReadOnly);
    // The links are the harness's: never a change to merge back, whatever the step does with them.
    await fs.rm(path.join(staging.root, 'node_modules'));
    expect(await staging.diff()).toEqual([]);
  });

  it('keeps inside symlinks as links to the copy, and never copies one leading outside', async () => {
    await fs.symlink(path.join(workspaceRoot, 'src', 'app.ts'), path.join(workspaceRoot, 'app-link.ts'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(workspaceRoot, 'escape.txt'));
    await fs.symlink(outside, path.join(workspaceRoot, 'escape-dir'));
    const staging = await createStaging(workspaceRoot, stagingRoot, 'branch-a');

    const link = path.join(staging.root, 'app-link.ts');
    expect((await fs.lstat(link)).isSymbolicLink()).toBe(true);
    expect(await fs.realpath(link)).toBe(path.join(staging.root, 'src', 'app.ts'));
    expect(await exists(path.join(staging.root, 'escape.txt'))).toBe(false);
    expect(await exists(path.join(staging.root, 'escape-dir'))).toBe(false);
    expect([...staging.skippedLinks].sort()).toEqual(['escape-dir', 'escape.txt']);
    await expect(staging.workspace.resolve('escape.txt')).resolves.toBe(path.join(staging.root, 'escape.txt'));
    expect(await staging.diff()).toEqual([]);
  });

  it('does not copy a staging folder that lives inside the workspace', async () => {
    const inner = path.join(workspaceRoot, '.staging');
    const first = await createStaging(workspaceRoot, inner, 'one');
    const second = await createStaging(workspaceRoot, inner, 'two');
    expect(await exists(path.join(second.root, '.staging'))).toBe(false);
    expect(await exists(path.join(first.root, 'README.md'))).toBe(true);
  });

  it('rejects a label that is not a plain folder name', async () => {
    await expect(createStaging(workspaceRoot, stagingRoot, '../evil')).rejects.toBeInstanceOf(TsukaError);
    expect(stagingLabel('step 2 @geordi/../x')).toBe('step-2-geordi-..-x');
  });

  it('reports added, modified and deleted files, and removes its folder on cleanup', async () => {
    const staging = await createStaging(workspaceRoot, stagingRoot, 'branch-a');
    await writeInStaging(staging, path.join('new.txt'), 'new');
    await writeInStaging(staging, path.join('src', 'app.ts'), 'export const app = 2;\n');
    await fs.rm(path.join(staging.root, 'README.md'));
    expect((await staging.diff()).map((change) => `${change.kind} ${change.path}`)).toEqual([
      'deleted README.md',
      'added new.txt',
      `modified ${path.join('src', 'app.ts')}`,
    ]);
    await staging.cleanup();
    expect(await exists(staging.root)).toBe(false);
  });
});

describe('mergeStagings', () => {
  it('merges two branches that wrote different files', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    const b = await createStaging(workspaceRoot, stagingRoot, 'b');
    await writeInStaging(a, path.join('src', 'core.ts'), 'core');
    await writeInStaging(b, path.join('docs.md'), 'docs');
    await writeInStaging(b, path.join('README.md'), 'hello, edited\n');

    const report = await mergeStagings(workspaceRoot, [a, b]);
    expect(report.conflicts).toEqual([]);
    expect(report.applied).toEqual(['README.md', 'docs.md', path.join('src', 'core.ts')]);
    expect(await read(workspaceRoot, 'src/core.ts')).toBe('core');
    expect(await read(workspaceRoot, 'docs.md')).toBe('docs');
    expect(await read(workspaceRoot, 'README.md')).toBe('hello, edited\n');
    expect(formatMergeReport(report)).toBe(`Merged 3 change(s): README.md, docs.md, ${path.join('src', 'core.ts')}`);
  });

  it('reports the same file changed differently as a conflict, leaves the original and saves both versions', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    const b = await createStaging(workspaceRoot, stagingRoot, 'b');
    await writeInStaging(a, path.join('src', 'app.ts'), 'version A');
    await writeInStaging(b, path.join('src', 'app.ts'), 'version B');

    const report = await mergeStagings(workspaceRoot, [a, b]);
    const appPath = path.join('src', 'app.ts');
    expect(report.applied).toEqual([]);
    expect(report.conflicts).toEqual([
      {
        path: appPath,
        branches: ['a', 'b'],
        savedCopies: [path.join('.tsuka', 'conflicts', 'a', appPath), path.join('.tsuka', 'conflicts', 'b', appPath)],
        reason: 'branches-differ',
      },
    ]);
    expect(await read(workspaceRoot, 'src/app.ts')).toBe('export const app = 1;\n');
    expect(await read(workspaceRoot, '.tsuka/conflicts/a/src/app.ts')).toBe('version A');
    expect(await read(workspaceRoot, '.tsuka/conflicts/b/src/app.ts')).toBe('version B');
    const text = formatMergeReport(report);
    expect(text).toContain('1 conflict(s)');
    expect(text).toContain(`${appPath} (changed differently by a, b)`);
  });

  it('does not call identical changes from two branches a conflict', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    const b = await createStaging(workspaceRoot, stagingRoot, 'b');
    await writeInStaging(a, path.join('README.md'), 'same\n');
    await writeInStaging(b, path.join('README.md'), 'same\n');
    const report = await mergeStagings(workspaceRoot, [a, b]);
    expect(report).toEqual({ applied: ['README.md'], conflicts: [], skipped: [] });
    expect(await read(workspaceRoot, 'README.md')).toBe('same\n');
  });

  it('applies a deletion, and calls delete-versus-edit a conflict', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    await fs.rm(path.join(a.root, 'README.md'));
    await fs.rm(path.join(a.root, 'src', 'app.ts'));
    const b = await createStaging(workspaceRoot, stagingRoot, 'b');
    await writeInStaging(b, path.join('src', 'app.ts'), 'kept and edited');

    const report = await mergeStagings(workspaceRoot, [a, b]);
    expect(report.applied).toEqual(['README.md']);
    expect(await exists(path.join(workspaceRoot, 'README.md'))).toBe(false);
    expect(report.conflicts).toMatchObject([
      { path: path.join('src', 'app.ts'), branches: ['a', 'b'], savedCopies: [path.join('.tsuka', 'conflicts', 'b', 'src', 'app.ts')] },
    ]);
    expect(await read(workspaceRoot, 'src/app.ts')).toBe('export const app = 1;\n');
  });

  it('calls a file changed in the workspace since staging began a conflict and keeps the workspace version', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    await writeInStaging(a, path.join('README.md'), 'from the branch\n');
    await writeInStaging(a, path.join('fresh.txt'), 'from the branch');
    await fs.writeFile(path.join(workspaceRoot, 'README.md'), 'edited by someone else meanwhile\n');
    await fs.writeFile(path.join(workspaceRoot, 'fresh.txt'), 'also created meanwhile');

    const report = await mergeStagings(workspaceRoot, [a]);
    expect(report.applied).toEqual([]);
    expect(report.conflicts.map((conflict) => [conflict.path, conflict.reason])).toEqual([
      ['README.md', 'workspace-changed'],
      ['fresh.txt', 'workspace-changed'],
    ]);
    expect(await read(workspaceRoot, 'README.md')).toBe('edited by someone else meanwhile\n');
    expect(await read(workspaceRoot, '.tsuka/conflicts/a/README.md')).toBe('from the branch\n');
  });

  it('never merges a symlink leading outside that a branch created', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(a.root, 'leak.txt'));
    await fs.symlink(path.join(a.root, 'src', 'app.ts'), path.join(a.root, 'inside-link.ts'));
    const report = await mergeStagings(workspaceRoot, [a]);
    expect(report.skipped).toMatchObject([{ path: 'leak.txt', branches: ['a'] }]);
    expect(await exists(path.join(workspaceRoot, 'leak.txt'))).toBe(false);
    expect(report.applied).toEqual(['inside-link.ts']);
    expect(await fs.realpath(path.join(workspaceRoot, 'inside-link.ts'))).toBe(path.join(workspaceRoot, 'src', 'app.ts'));
  });

  it('does not write through a workspace folder that became a symlink leading outside', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    await fs.mkdir(path.join(a.root, 'out'));
    await writeInStaging(a, path.join('out', 'x.txt'), 'x');
    await fs.symlink(outside, path.join(workspaceRoot, 'out'));
    const report = await mergeStagings(workspaceRoot, [a]);
    expect(report.applied).toEqual([]);
    expect(report.skipped[0]?.reason).toBe(new WorkspaceEscapeError('out').message);
    expect(await exists(path.join(outside, 'x.txt'))).toBe(false);
  });

  it('says when the branches changed nothing', async () => {
    const a = await createStaging(workspaceRoot, stagingRoot, 'a');
    expect(formatMergeReport(await mergeStagings(workspaceRoot, [a]))).toBe('Merge: the parallel steps changed no file.');
  });
});
