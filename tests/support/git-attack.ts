/** What the hostile-repository tests share: a git run with a clean environment, and a tool context over a folder. */
import { execFileSync } from 'node:child_process';
import { silentLogger } from '../../src/core/logger.js';
import { createFallbackSandbox } from '../../src/core/safety/fallback-sandbox.js';
import { createWorkspace } from '../../src/core/safety/workspace-jail.js';
import type { ToolContext } from '../../src/core/tools/tool.js';

export const childEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/nonexistent',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], {
    cwd,
    env: { ...childEnv, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
    // A test that expects git to refuse keeps git's own error lines out of the test output.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function contextFor(root: string): Promise<ToolContext> {
  return {
    workspace: await createWorkspace(root),
    signal: new AbortController().signal,
    childEnv,
    sandbox: createFallbackSandbox(),
    maskSecrets: (text) => text,
    runId: 'r',
    agentName: 'geordi',
    logger: silentLogger,
    services: {},
  };
}
