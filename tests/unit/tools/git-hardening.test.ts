/** Git in agents' commands cannot be turned into a way to run programs or reach other repositories. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { classifyCommand } from '../../../src/core/safety/command-risk.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-git-hardening-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function contextFor(root: string): Promise<ToolContext> {
  return {
    workspace: await createWorkspace(root),
    signal: new AbortController().signal,
    childEnv: { PATH: process.env.PATH, HOME: home },
    sandbox: createFallbackSandbox(),
    maskSecrets: (text) => text,
    runId: 'r',
    agentName: 'geordi',
    logger: silentLogger,
    services: {},
  };
}

describe('git hardening for agent commands', () => {
  it('a bare-repository layout written into the workspace is not taken for a repository (its fsmonitor never runs)', async () => {
    const root = path.join(home, 'ws');
    const marker = path.join(home, 'pwned');
    await mkdir(path.join(root, 'objects'), { recursive: true });
    await mkdir(path.join(root, 'refs'), { recursive: true });
    await writeFile(path.join(root, 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(root, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker}"\n`);
    expect(classifyCommand('git status', { workspaceRoot: root }).level).toBe('SAFE');
    const result = await executeCommandTool.execute({ command: 'git status' }, await contextFor(root));
    expect(result.output).toMatch(/not a git repository/i);
    expect(existsSync(marker)).toBe(false);
  });

  it('the repository fsmonitor and hooks never run, even when .git/config names them', async () => {
    const root = path.join(home, 'repo');
    const marker = path.join(home, 'pwned');
    execFileSync('git', ['init', '-q', root]);
    execFileSync('git', ['-C', root, 'config', 'core.fsmonitor', `touch ${marker}`]);
    await writeFile(path.join(root, 'a.txt'), 'a');
    const result = await executeCommandTool.execute({ command: 'git status' }, await contextFor(root));
    expect(result.output).toMatch(/a\.txt/);
    expect(existsSync(marker)).toBe(false);
  });

  it('a workspace inside another repository (the bot own clone) does not reach it', async () => {
    const outer = path.join(home, 'bot-clone');
    execFileSync('git', ['init', '-q', outer]);
    await writeFile(path.join(outer, '.env'), 'SLACK_BOT_TOKEN=xoxb-secret\n');
    execFileSync('git', ['-C', outer, 'add', '.env']);
    const root = path.join(outer, 'data', 'workspace');
    await mkdir(root, { recursive: true });
    const result = await executeCommandTool.execute({ command: 'git status' }, await contextFor(root));
    expect(result.output).toMatch(/not a git repository/i);
    expect(classifyCommand('git init --template=tpl sub', { workspaceRoot: root }).level).toBe('DANGEROUS');
  });
});
