import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-staging-git-'));
  execFileSync('git', ['init', '-q', root]);
  await mkdir(path.join(root, '.tsuka/staging/run-1/step-1'), { recursive: true });
  await writeFile(path.join(root, '.tsuka/staging/run-1/step-1/a.txt'), 'a');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a parallel step in a staging copy inside the workspace', () => {
  it('cannot reach the real repository through git', async () => {
    const staging = path.join(root, '.tsuka/staging/run-1/step-1');
    const context: ToolContext = {
      workspace: await createWorkspace(staging),
      signal: new AbortController().signal,
      childEnv: { PATH: process.env.PATH, HOME: root },
      sandbox: createFallbackSandbox(),
      maskSecrets: (text) => text,
      runId: 'run-1',
      agentName: 'geordi',
      logger: silentLogger,
      services: { cwd: staging },
    };
    const result = await executeCommandTool.execute({ command: 'git status' }, context);
    expect(result.output).toMatch(/not a git repository/i);
    expect(execFileSync('git', ['-C', root, 'status', '--porcelain'], { encoding: 'utf8' })).not.toMatch(/a\.txt/);
  });
});
