import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TsukaError } from '../../../src/core/errors.js';
import { createChildEnv } from '../../../src/core/safety/child-env.js';
import { runCommand } from '../../../src/core/safety/process-runner.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

let dir: string;
const env = createChildEnv(process.env);
// The runner's own behaviour (host pids are visible); the bubblewrap path has its own tests.
const sandbox = createFallbackSandbox();

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-run-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Alive = exists and is not a zombie (an orphan's zombie lingers until PID 1 reaps it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  const statFile = `/proc/${pid}/stat`;
  if (!existsSync(statFile)) return true;
  const state = readFileSync(statFile, 'utf8').split(') ')[1]?.charAt(0);
  return state !== 'Z' && state !== 'X';
}

/**
 * A killed process closes its pipes a moment before it is dead, and a pid that is not our child
 * has no exit event to await, so this polls /proc briefly (bounded) instead.
 */
async function waitUntilDead(pid: number, limitMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

async function readPids(file: string): Promise<number[]> {
  const text = await fs.readFile(file, 'utf8');
  return text.split(/\s+/).filter(Boolean).map(Number);
}

describe('runCommand', () => {
  it('reports exit codes without rejecting and interleaves stdout and stderr', async () => {
    const ok = await runCommand({ command: 'echo out; echo err >&2', cwd: dir, sandbox, env, timeoutMs: 10_000 });
    expect(ok.exitCode).toBe(0);
    expect(ok.output).toContain('out\n');
    expect(ok.output).toContain('err\n');
    expect(ok).toMatchObject({ signalName: null, truncated: false, timedOut: false, aborted: false });

    const failed = await runCommand({ command: 'echo failing; exit 3', cwd: dir, sandbox, env, timeoutMs: 10_000 });
    expect(failed.exitCode).toBe(3);
    expect(failed.output).toBe('failing\n');
  });

  it('runs in the given cwd', async () => {
    const result = await runCommand({ command: 'pwd', cwd: dir, sandbox, env, timeoutMs: 10_000 });
    expect(result.output.trim()).toBe(await fs.realpath(dir));
  });

  it('caps the output, keeping head and tail with a note', async () => {
    const command = "echo FIRST-LINE; i=0; while [ $i -lt 2000 ]; do echo 'filler line of text'; i=$((i+1)); done; echo LAST-LINE";
    const result = await runCommand({ command, cwd: dir, sandbox, env, timeoutMs: 10_000, maxOutputBytes: 1_000 });
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('FIRST-LINE\n')).toBe(true);
    expect(result.output.trimEnd().endsWith('LAST-LINE')).toBe(true);
    expect(result.output).toMatch(/bytes of output omitted/);
    expect(Buffer.byteLength(result.output)).toBeLessThan(1_200);
  });

  it('on timeout kills the whole process tree, grandchildren included', async () => {
    const pidFile = path.join(dir, 'pids');
    const command = `echo $$ >> '${pidFile}'; sh -c 'echo $$ >> "$0"; sleep 30 & echo $! >> "$0"; sleep 30' '${pidFile}'`;
    const result = await runCommand({ command, cwd: dir, sandbox, env, timeoutMs: 1_500 });
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.exitCode).toBeNull();
    expect(result.signalName).toBe('SIGTERM');
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(await waitUntilDead(pid), `pid ${pid}`).toBe(true);
  });

  it('escalates to SIGKILL when the tree ignores SIGTERM', async () => {
    const pidFile = path.join(dir, 'pids');
    const command = `trap '' TERM; sleep 30 & echo $! > '${pidFile}'; wait`;
    const result = await runCommand({ command, cwd: dir, sandbox, env, timeoutMs: 1_000 });
    expect(result.timedOut).toBe(true);
    expect(result.signalName).toBe('SIGKILL');
    const [pid] = await readPids(pidFile);
    expect(await waitUntilDead(pid as number)).toBe(true);
  });

  it('an AbortSignal kills the whole tree', async () => {
    const fifo = path.join(dir, 'ready.fifo');
    execFileSync('mkfifo', [fifo]);
    const controller = new AbortController();
    const command = `sh -c 'sleep 30 & echo $$ $! > "$0"; wait' '${fifo}'`;
    const running = runCommand({ command, cwd: dir, sandbox, env, timeoutMs: 15_000, signal: controller.signal });
    // Reading the FIFO completes once the command has started its children.
    const pids = (await fs.readFile(fifo, 'utf8')).split(/\s+/).filter(Boolean).map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    for (const pid of pids) expect(await waitUntilDead(pid), `pid ${pid}`).toBe(true);
  });

  it('does not start anything when the signal is already aborted', async () => {
    const marker = path.join(dir, 'ran');
    const controller = new AbortController();
    controller.abort();
    const result = await runCommand({ command: `touch '${marker}'`, cwd: dir, sandbox, env, timeoutMs: 10_000, signal: controller.signal });
    expect(result.aborted).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(existsSync(marker)).toBe(false);
  });

  it('does not leave background jobs running after the shell exits', async () => {
    const pidFile = path.join(dir, 'pids');
    const result = await runCommand({ command: `sleep 30 & echo $! > '${pidFile}'`, cwd: dir, sandbox, env, timeoutMs: 10_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(0);
    const [pid] = await readPids(pidFile);
    expect(await waitUntilDead(pid as number)).toBe(true);
  });

  it('gives the child only the scrubbed environment', async () => {
    const childEnv = createChildEnv({ ...process.env, SLACK_BOT_TOKEN: 'xoxb-test-123456', GITHUB_TOKEN: 'ghp_test', TSUKA_TEST_MARKER: 'visible' });
    const result = await runCommand({ command: 'env', cwd: dir, sandbox, env: childEnv, timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('TSUKA_TEST_MARKER=visible');
    expect(result.output).not.toMatch(/SLACK_BOT_TOKEN|xoxb-test|GITHUB_TOKEN/);
  });

  it('rejects with a TsukaError when the shell cannot start', async () => {
    const missing = path.join(dir, 'does-not-exist');
    await expect(runCommand({ command: 'true', cwd: missing, sandbox, env, timeoutMs: 10_000 })).rejects.toBeInstanceOf(TsukaError);
  });
});
