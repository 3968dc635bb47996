import { mkdtemp, rm } from 'node:fs/promises';
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
