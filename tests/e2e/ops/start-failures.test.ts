/**
 * Start-up failures are one short message and a non-zero exit: a busy port (the real process), a
 * broken roster file (the same lines doctor prints), an unknown default character (before any model
 * probing). The stack only at TSUKA_LOG_LEVEL=debug.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { cp, mkdtemp, readFile, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, PACKAGE_ROOT, type CliIo } from '../../../src/cli/main.js';
import { cliEnvironment, TSUKA_BIN } from '../../support/cli-process.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';

let home: string;
let blocker: Server | undefined;
let model: ScriptedModelServer;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-fail-'));
  model = await startScriptedModelServer();
});
afterEach(async () => {
  if (blocker) await new Promise<void>((resolve) => blocker!.close(() => resolve()));
  blocker = undefined;
  await model.close();
  await rm(home, { recursive: true, force: true });
});

async function startProcess(environment: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSUKA_BIN, 'start'], {
    cwd: home,
    env: cliEnvironment(home, { TSUKA_LLM_BASE_URL: model.baseURL, ...environment }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

async function busyPort(): Promise<number> {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  return (blocker.address() as { port: number }).port;
}

function inProcess(rootDirectory: string, environment: Record<string, string> = {}): { io: CliIo; output: () => { stdout: string; stderr: string } } {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    environment: cliEnvironment(home, { TSUKA_LLM_BASE_URL: model.baseURL, TSUKA_HTTP_PORT: '0', ...environment }),
    workingDirectory: home,
    rootDirectory,
  };
  return { io, output: () => ({ stdout, stderr }) };
}

describe('start-up failures', () => {
  it('a busy port: exit 1 with one line naming the port and TSUKA_HTTP_PORT; the stack only at debug level', async () => {
    const port = await busyPort();
    const plain = await startProcess({ TSUKA_HTTP_PORT: String(port), TSUKA_LOG_LEVEL: 'warn' });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      `Port ${port} on 127.0.0.1 is already in use (TSUKA_HTTP_PORT): stop the program that uses it, or set TSUKA_HTTP_PORT to a free port.\n`,
    );
    // The lock was released: the next start is not told another instance runs.
    await expect(readFile(path.join(home, 'data', 'tsuka.lock'), 'utf8')).rejects.toThrow();
    // Found before anything slow: the store was never opened, the model server never asked.
    await expect(readFile(path.join(home, 'data', 'tsuka.sqlite'))).rejects.toThrow();
    expect(model.hits).toEqual([]);

    const debug = inProcess(PACKAGE_ROOT, { TSUKA_HTTP_PORT: String(port), TSUKA_LOG_LEVEL: 'debug' });
    expect(await main(['start'], debug.io)).toBe(1);
    expect(debug.output().stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    expect(debug.output().stderr).toMatch(/\n\s+at .+http-server\.ts/);
    expect(debug.output().stderr).toMatch(/Caused by: Error: listen EADDRINUSE/);
  }, 60_000);

  it('a broken roster file: start and ask print the same lines as doctor, no stack', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-root-'));
    try {
      for (const name of ['roles', 'traits', 'teams', 'tools_schemas', 'providers.json']) await symlink(path.join(PACKAGE_ROOT, name), path.join(root, name));
      await cp(path.join(PACKAGE_ROOT, 'characters'), path.join(root, 'characters'), { recursive: true });
      const geordi = path.join(root, 'characters', 'geordi.json');
      await writeFile(geordi, (await readFile(geordi, 'utf8')).replace(/",\s*\n/, '"\n'));

      const doctor = inProcess(root);
      expect(await main(['doctor'], doctor.io)).toBe(1);
      const doctorLines = doctor
        .output()
        .stdout.split('\n')
        .filter((line) => line.includes('characters/geordi.json'));
      expect(doctorLines.length).toBeGreaterThan(0);

      const probesByDoctor = model.hits.length;
      const start = inProcess(root);
      expect(await main(['start'], start.io)).toBe(1);
      expect(start.output().stderr).toMatch(/^✗ characters\/geordi\.json .*line \d+/);
      expect(start.output().stderr).not.toMatch(/\n\s+at /);
      for (const line of doctorLines) expect(start.output().stderr).toContain(line);

      const ask = inProcess(root);
      expect(await main(['ask', 'worf', 'hi'], ask.io)).toBe(1);
      expect(ask.output().stderr).toBe(start.output().stderr);
      // Nothing was probed: the roster fails before any model server is asked.
      expect(model.hits).toHaveLength(probesByDoctor);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('an unknown default character: one line, before any model server is probed', async () => {
    const start = inProcess(PACKAGE_ROOT, { TSUKA_DEFAULT_CHARACTER: 'nobody' });
    expect(await main(['start'], start.io)).toBe(1);
    expect(start.output().stderr).toMatch(/^TSUKA_DEFAULT_CHARACTER="nobody" is not a character: use one of .*geordi.*\.\n$/);
    expect(model.hits).toEqual([]);
    await mkdir(path.join(home, 'data'), { recursive: true });
    await expect(readFile(path.join(home, 'data', 'tsuka.lock'), 'utf8')).rejects.toThrow();
  });
});
