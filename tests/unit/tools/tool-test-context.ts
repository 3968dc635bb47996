/**
 * A real ToolContext on a temp folder for the tool tests: the jailed workspace, the scrubbed
 * child environment and the secret masker from `src/core/safety`. The workspace is
 * `<temp>/workspace`; `<temp>/outside` is a sibling for escape attempts.
 */
import { watch } from 'node:fs';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/core/logger.js';
import { createChildEnv } from '../../../src/core/safety/child-env.js';
import { createSecretMasker } from '../../../src/core/safety/secret-mask.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';
import type { CommandSandbox } from '../../../src/core/safety/command-sandbox.js';
import type { ToolContext, ToolServices } from '../../../src/core/tools/tool.js';

export interface TestToolContext {
  context: ToolContext;
  /** The workspace root (realpath). */
  root: string;
  /** A folder beside the workspace, outside the jail. */
  outside: string;
  abort: AbortController;
  cleanup(): Promise<void>;
}

export async function createTestToolContext(
  options: { env?: NodeJS.ProcessEnv; services?: ToolServices; sandbox?: CommandSandbox } = {},
): Promise<TestToolContext> {
  const base = await mkdtemp(join(os.tmpdir(), 'tsuka-tools-'));
  const workspace = await createWorkspace(join(base, 'workspace'));
  const outside = join(base, 'outside');
  await mkdir(outside);
  const env = options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, LANG: 'C' };
  const abort = new AbortController();
  const context: ToolContext = {
    workspace,
    signal: abort.signal,
    childEnv: createChildEnv(env),
    sandbox: options.sandbox ?? createFallbackSandbox(),
    maskSecrets: createSecretMasker(env),
    runId: 'run-test',
    agentName: 'geordi',
    logger: silentLogger,
    services: options.services ?? {},
  };
  return { context, root: workspace.root, outside, abort, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Resolves once `path` exists (watching its folder), so tests wait on the event, not a clock. */
export async function waitForFile(path: string, directory: string): Promise<void> {
  const exists = (): Promise<boolean> =>
    access(path).then(
      () => true,
      () => false,
    );
  if (await exists()) return;
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(directory, () => {
      void exists().then((found) => {
        if (found) {
          watcher.close();
          resolve();
        }
      }, reject);
    });
    // The file may have appeared between the first check and the watch starting.
    void exists().then((found) => {
      if (found) {
        watcher.close();
        resolve();
      }
    }, reject);
  });
}
