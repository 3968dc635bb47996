import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../src/core/safety/command-risk.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { writeFileTool } from '../../../src/core/tools/impl/write-file.js';
import { editFileTool } from '../../../src/core/tools/impl/edit-file.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

let root: string;
let context: ToolContext;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-git-'));
  context = {
    workspace: await createWorkspace(root),
    signal: new AbortController().signal,
    childEnv: {},
    sandbox: createFallbackSandbox(),
    maskSecrets: (text) => text,
    runId: 'r',
    agentName: 'geordi',
    logger: silentLogger,
    services: {},
  };
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('writes into .git/ are DANGEROUS (config and hooks make git run programs)', () => {
  it('write_file and edit_file ask as DANGEROUS inside .git/, RESTRICTED elsewhere', async () => {
    expect((await writeFileTool.classify!({ path: '.git/config', content: '[core]\nfsmonitor = ./evil' }, context)).level).toBe('DANGEROUS');
    expect((await writeFileTool.classify!({ path: 'sub/.git/hooks/pre-commit', content: 'x' }, context)).level).toBe('DANGEROUS');
    expect((await editFileTool.classify!({ path: '.GIT/config', targetContent: 'a', replacementContent: 'b' }, context)).level).toBe('DANGEROUS');
    expect((await writeFileTool.classify!({ path: 'src/.gitignore', content: 'x' }, context)).level).toBe('RESTRICTED');
    expect((await writeFileTool.classify!({ path: '../outside.txt', content: 'x' }, context)).level).toBe('DANGEROUS');
  });

  it('a command that would be RESTRICTED becomes DANGEROUS when it touches .git/', () => {
    expect(classifyCommand('cp hook.sh .git/hooks/pre-commit', { workspaceRoot: root }).level).toBe('DANGEROUS');
    expect(classifyCommand('mkdir .git/hooks', { workspaceRoot: root }).level).toBe('DANGEROUS');
    expect(classifyCommand('cp a.txt b.txt', { workspaceRoot: root }).level).toBe('RESTRICTED');
  });
});

describe('writes into any git folder are DANGEROUS, not only into .git/', () => {
  let repo: string;
  let repoContext: ToolContext;
  /** A folder with what git needs to take it for a git folder. */
  async function gitFolder(folder: string): Promise<void> {
    await mkdir(path.join(folder, 'objects'), { recursive: true });
    await mkdir(path.join(folder, 'refs'), { recursive: true });
    await writeFile(path.join(folder, 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(folder, 'config'), '[core]\n\tbare = false\n');
  }
  beforeAll(async () => {
    repo = path.join(root, 'gitfile-repo');
    // `.git` is a gitfile naming `gd`, whose `commondir` is `common` (a linked worktree's layout).
    await gitFolder(path.join(repo, 'gd'));
    await writeFile(path.join(repo, 'gd', 'commondir'), '../common\n');
    await mkdir(path.join(repo, 'common'));
    await writeFile(path.join(repo, '.git'), 'gitdir: gd\n');
    await symlink('gd', path.join(repo, 'link'));
    await gitFolder(path.join(repo, 'vendor', 'lib.git'));
    repoContext = { ...context, workspace: await createWorkspace(repo) };
  });

  it.each(['gd/config', 'gd/hooks/pre-commit', 'link/config', 'common/config', 'vendor/lib.git/config', '.git/modules/sub/config', 'sub/.git'])(
    'write_file and edit_file into %s ask as DANGEROUS',
    async (target) => {
      const write = await writeFileTool.classify!({ path: target, content: '[diff]\nexternal = ./evil' }, repoContext);
      expect(write).toEqual({ level: 'DANGEROUS', reason: expect.stringMatching(/git folder/) });
      expect((await editFileTool.classify!({ path: target, targetContent: 'a', replacementContent: 'b' }, repoContext)).level).toBe('DANGEROUS');
    },
  );

  it('commands that write into them ask as DANGEROUS; writes elsewhere stay RESTRICTED', () => {
    for (const command of [
      'touch gd/config',
      'mkdir gd/hooks',
      'cp evil.cfg link/config',
      'cp -t common evil.cfg',
      'cp --target-directory=gd evil.cfg',
      'touch vendor/lib.git/config',
    ]) {
      expect(classifyCommand(command, { workspaceRoot: repo }).level, command).toBe('DANGEROUS');
    }
    expect(classifyCommand('touch notes.txt', { workspaceRoot: repo }).level).toBe('RESTRICTED');
    expect(classifyCommand('mkdir vendor/other', { workspaceRoot: repo }).level).toBe('RESTRICTED');
  });
});
