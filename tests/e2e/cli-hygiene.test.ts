/**
 * Issue 26, tried as a new team would: `tsuka runs | head -3` must not print an EPIPE stack trace, and
 * `tsuka backup backups/tsuka.sqlite` works on a fresh clone (the folder is made). The real command.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnvironment, TSUKA_BIN } from '../support/cli-process.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-cli-hygiene-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function run(args: string[], options: { closeStdout?: boolean } = {}) {
  const child = spawn(process.execPath, [TSUKA_BIN, ...args], { cwd: home, env: cliEnvironment(home, { TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }) });
  // The reader of a pipe that went away (`| head -1` after its line): every write fails with EPIPE.
  if (options.closeStdout) child.stdout.destroy();
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (!options.closeStdout) child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr, stdout };
}

describe('the command line, as a new team uses it', () => {
  it('a closed pipe ends the command quietly, without a stack trace', async () => {
    const result = await run(['--help'], { closeStdout: true });
    expect(result.stderr).not.toMatch(/EPIPE|at .*\.(js|ts):\d+/);
    expect(result.code).toBe(0);
  });

  it('tsuka backup into a folder that does not exist yet makes it, and the backup is private', async () => {
    expect((await run(['runs'])).code).toBe(0);
    const result = await run(['backup', 'backups/tsuka.sqlite']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await stat(path.join(home, 'backups', 'tsuka.sqlite'))).mode & 0o777).toBe(0o600);
  });
});
