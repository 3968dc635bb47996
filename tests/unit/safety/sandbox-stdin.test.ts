/**
 * Issue 35: a command under the default sandbox (bubblewrap + the user-mode network) reads what
 * its caller writes to its standard input — the sandbox's network wrapper starts it as a
 * background job, which a POSIX shell would otherwise give /dev/null. (run_command itself starts
 * commands with stdin closed on purpose; stdio MCP servers are the callers that write to it.)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSandboxConfig } from '../../../src/config/sandbox-config.js';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import type { CommandSandbox } from '../../../src/core/safety/command-sandbox.js';
import { probeSandbox, selectCommandSandbox } from '../../../src/core/safety/select-sandbox.js';
import { findProgram } from '../../../src/core/safety/sandbox-network.js';

const unavailable = await probeSandbox(createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }));
const slirpInstalled = findProgram('slirp4netns', '/usr/local/bin:/usr/bin:/bin') !== undefined;

/** Spawns the sandbox's launch of `command`, writes `input` to its stdin and closes it; resolves with stdout and the exit code. */
function runWithInput(sandbox: CommandSandbox, root: string, command: string, input: string): Promise<{ stdout: string; code: number | null }> {
  const launch = sandbox.launch({ command, root, cwd: root, env: { PATH: '/usr/bin:/bin', LANG: 'C' } });
  const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, code }));
  });
}

describe.skipIf(unavailable !== undefined || !slirpInstalled)(
  `standard input under the default sandbox${unavailable ? ` (skipped: bwrap does not work here: ${unavailable})` : slirpInstalled ? '' : ' (skipped: slirp4netns is not installed)'}`,
  () => {
    let root: string;
    let sandbox: CommandSandbox;
    beforeAll(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-sandbox-stdin-'));
      const problems: string[] = [];
      sandbox = await selectCommandSandbox(readSandboxConfig({ setting: () => undefined, problems, hiddenPaths: [] }));
      expect(problems).toEqual([]);
      expect(sandbox.network).toBe('user');
    });
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it('a command that reads its standard input gets what the caller wrote, line by line and to the end', async () => {
      const result = await runWithInput(sandbox, root, 'read -r first; echo "first: $first"; echo "rest: $(wc -l)"', 'one\ntwo\nthree\n');
      expect(result).toEqual({ stdout: 'first: one\nrest: 2\n', code: 0 });
      expect(await runWithInput(sandbox, root, 'cat', 'as is, no newline')).toEqual({ stdout: 'as is, no newline', code: 0 });
    });
  },
);
