/**
 * Issue 42, staging without copying: a staging's files are reflinks or hard links to the
 * workspace's, so a step's writes must never reach the real workspace through a shared inode —
 * neither through the file tools (write, append, edit) nor through a sandboxed command writing a
 * file in place — until the merge; and a staging nobody wrote diffs to nothing without a file
 * being read. The command cases run under the env-only fallback and under bubblewrap (skipped
 * where bwrap cannot run).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import { createChildEnv } from '../../../../src/core/safety/child-env.js';
import { prepareBeforeCommands } from '../../../../src/core/safety/command-preparation.js';
import type { CommandSandbox } from '../../../../src/core/safety/command-sandbox.js';
import { createFallbackSandbox } from '../../../../src/core/safety/fallback-sandbox.js';
import { runCommand } from '../../../../src/core/safety/process-runner.js';
import { editFileTool } from '../../../../src/core/tools/impl/edit-file.js';
import { executeCommandTool } from '../../../../src/core/tools/impl/execute-command.js';
import { writeFileTool } from '../../../../src/core/tools/impl/write-file.js';
import type { ToolContext } from '../../../../src/core/tools/tool.js';
import { mergeStagings } from '../../../../src/core/workflows/goal/merge-stagings.js';
import { createStaging, reopenStaging, type Staging } from '../../../../src/core/workflows/goal/parallel-workspace.js';
import { BUBBLEWRAP_UNAVAILABLE } from '../../../support/test-sandbox.js';

// Every file the code under test opens for reading through a stream (how contents are hashed).
const streamed = vi.hoisted(() => [] as string[]);
vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  const createReadStream = ((file: string, ...rest: unknown[]) => {
    streamed.push(String(file));
    return (original.createReadStream as (...args: unknown[]) => unknown)(file, ...rest);
  }) as typeof original.createReadStream;
  return { ...original, default: { ...original, createReadStream }, createReadStream };
});

let base: string;
let workspace: string;
let stagingRoot: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-staging-links-')));
  workspace = path.join(base, 'workspace');
  stagingRoot = path.join(workspace, '.tsuka', 'staging', 'run-1');
  await fs.mkdir(path.join(workspace, 'src', 'deep'), { recursive: true });
  await fs.writeFile(path.join(workspace, 'README.md'), 'hello\n');
  await fs.writeFile(path.join(workspace, 'src', 'app.ts'), 'export const app = 1;\n');
  await fs.writeFile(path.join(workspace, 'src', 'deep', 'notes.txt'), 'one\n');
  streamed.length = 0;
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const read = (root: string, relative: string): Promise<string> => fs.readFile(path.join(root, relative), 'utf8');
const inode = async (file: string): Promise<number> => (await fs.stat(file)).ino;

function context(staging: Staging, sandbox: CommandSandbox = createFallbackSandbox()): ToolContext {
  return {
    workspace: staging.workspace,
    signal: new AbortController().signal,
    childEnv: createChildEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, LANG: 'C' }),
    sandbox,
    maskSecrets: (text) => text,
    runId: 'run-1',
    agentName: 'geordi',
    logger: silentLogger,
    services: { cwd: staging.root },
  };
}

describe('a staging made of hard links', () => {
  it('is made without copying: its files are the workspace inodes, and the default mode never copies here', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    expect(staging.mode).toBe('hardlink');
    expect(await inode(path.join(staging.root, 'src', 'app.ts'))).toBe(await inode(path.join(workspace, 'src', 'app.ts')));
    // Unforced, the file system decides: a clone where it can, a hard link where it cannot — not a copy.
    const chosen = await createStaging(workspace, stagingRoot, 'step-2');
    expect(['reflink', 'hardlink']).toContain(chosen.mode);
  });

  it('leaves the real workspace unchanged when the file tools write, append and edit, until the merge', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    const sibling = await createStaging(workspace, stagingRoot, 'step-2', { mode: 'hardlink' });
    const tools = context(staging);
    await writeFileTool.execute({ path: 'README.md', content: 'replaced\n' }, tools);
    await writeFileTool.execute({ path: 'src/deep/notes.txt', content: 'two\n', append: true }, tools);
    await editFileTool.execute({ path: 'src/app.ts', targetContent: 'app = 1', replacementContent: 'app = 2' }, tools);
    expect(await read(staging.root, 'src/deep/notes.txt')).toBe('one\ntwo\n');
    expect(await read(staging.root, 'src/app.ts')).toBe('export const app = 2;\n');
    for (const root of [workspace, sibling.root]) {
      expect(await read(root, 'README.md')).toBe('hello\n');
      expect(await read(root, 'src/deep/notes.txt')).toBe('one\n');
      expect(await read(root, 'src/app.ts')).toBe('export const app = 1;\n');
    }
    const report = await mergeStagings(workspace, [staging]);
    expect(report.applied).toEqual(['README.md', 'src/app.ts', 'src/deep/notes.txt']);
    expect(await read(workspace, 'src/deep/notes.txt')).toBe('one\ntwo\n');
    expect(await read(workspace, 'src/app.ts')).toBe('export const app = 2;\n');
    expect(await read(sibling.root, 'src/app.ts')).toBe('export const app = 1;\n');
  });

  it('diffs to nothing without reading a file when nothing was written, and reads only the written file otherwise', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    streamed.length = 0;
    expect(await staging.diff()).toEqual([]);
    expect(streamed).toEqual([]);
    await writeFileTool.execute({ path: 'src/app.ts', content: 'export const app = 3;\n' }, context(staging));
    streamed.length = 0;
    expect((await staging.diff()).map((change) => `${change.kind} ${change.path}`)).toEqual(['modified src/app.ts']);
    // The written file, and the workspace's (still the base) to see whether its content really changed.
    expect(streamed.sort()).toEqual([path.join(staging.root, 'src', 'app.ts'), path.join(workspace, 'src', 'app.ts')].sort());
  });

  it('still diffs without reading once its files were made private, and after a restart reopened it', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    await staging.prepareForCommands();
    expect(await inode(path.join(staging.root, 'README.md'))).not.toBe(await inode(path.join(workspace, 'README.md')));
    streamed.length = 0;
    expect(await staging.diff()).toEqual([]);
    const reopened = (await reopenStaging(stagingRoot, 'step-1')) as Staging;
    expect(await reopened.diff()).toEqual([]);
    expect(streamed).toEqual([]);
  });

  it("keeps each file's mode in its private copy, and in a copied staging", async () => {
    await fs.writeFile(path.join(workspace, 'run.sh'), '#!/bin/sh\n');
    await fs.chmod(path.join(workspace, 'run.sh'), 0o751);
    const linked = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    await linked.prepareForCommands();
    const copied = await createStaging(workspace, stagingRoot, 'step-2', { mode: 'copy' });
    for (const staging of [linked, copied]) {
      const stats = await fs.stat(path.join(staging.root, 'run.sh'));
      expect(stats.mode & 0o7777).toBe(0o751);
      expect(stats.ino).not.toBe(await inode(path.join(workspace, 'run.sh')));
      expect(await staging.diff()).toEqual([]);
    }
  });

  it('calls a file the workspace changed in place meanwhile a conflict, though the staging shares it', async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    await writeFileTool.execute({ path: 'README.md', content: 'from the branch\n' }, context(staging));
    await fs.appendFile(path.join(workspace, 'README.md'), 'edited in place by someone else\n');
    const report = await mergeStagings(workspace, [staging]);
    expect(report.conflicts.map((conflict) => conflict.path)).toEqual(['README.md']);
    expect(await read(workspace, 'README.md')).toBe('hello\nedited in place by someone else\n');
  });
});

const skipped = (reason: string | undefined) => (reason === undefined ? '' : ` (skipped: ${reason})`);
const sandboxes: [string, () => CommandSandbox, string | undefined][] = [
  ['the env-only fallback', () => createFallbackSandbox(), undefined],
  ['bubblewrap', () => createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }), BUBBLEWRAP_UNAVAILABLE],
];

describe.each(sandboxes)('a command writing files in place under %s', (_name, makeSandbox, unavailable) => {
  it.skipIf(unavailable !== undefined)(`leaves the real workspace and the sibling staging unchanged until the merge${skipped(unavailable)}`, async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-1', { mode: 'hardlink' });
    const sibling = await createStaging(workspace, stagingRoot, 'step-2', { mode: 'hardlink' });
    const result = await executeCommandTool.execute(
      { command: 'printf "appended\\n" >> README.md && printf "export const app = 9;\\n" > src/app.ts && cat README.md' },
      context(staging, makeSandbox()),
    );
    expect(result.output).toBe('exit 0\nhello\nappended');
    for (const root of [workspace, sibling.root]) {
      expect(await read(root, 'README.md')).toBe('hello\n');
      expect(await read(root, 'src/app.ts')).toBe('export const app = 1;\n');
    }
    expect((await staging.diff()).map((change) => change.path)).toEqual(['README.md', 'src/app.ts']);
    const report = await mergeStagings(workspace, [staging]);
    expect(report.applied).toEqual(['README.md', 'src/app.ts']);
    expect(await read(workspace, 'README.md')).toBe('hello\nappended\n');
    expect(await read(sibling.root, 'README.md')).toBe('hello\n');
  });
});

describe('a folder whose files cannot be made private', () => {
  it('refuses the command: nothing runs there', async () => {
    const folder = path.join(base, 'linked');
    await fs.mkdir(folder);
    const unregister = prepareBeforeCommands(folder, async () => {
      throw new Error('disk full');
    });
    try {
      const command = runCommand({ command: 'touch ran', cwd: folder, sandbox: createFallbackSandbox(), env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000 });
      await expect(command).rejects.toMatchObject({ code: 'command_folder_unprepared' });
      await expect(fs.stat(path.join(folder, 'ran'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      unregister();
    }
  });
});
