import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSlackEmulator } from './slack-emulator.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/bolt-lifecycle.ts', import.meta.url));

function runFixture(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('Slack emulator lifecycle', () => {
  it('leaves no open handle after app.stop() and close(): a process running Bolt against it exits by itself', async () => {
    const { code, output } = await runFixture();
    expect(output).toContain('closed after');
    expect(output).not.toContain('still alive');
    expect(code).toBe(0);
  }, 30_000);

  it('closes idempotently, stops listening, and fails pending waits with a clear error', async () => {
    const emulator = await startSlackEmulator();
    const port = Number(new URL(emulator.baseUrl).port);
    const waiting = emulator.waitFor(() => false, { timeoutMs: 60_000 });
    await emulator.close();
    await emulator.close();
    await expect(waiting).rejects.toThrow(/closed/);
    expect(await refusesConnections(port)).toBe(true);
  });

  it('rejects a delivery when no socket connects within the ack deadline', async () => {
    const emulator = await startSlackEmulator({ ackTimeoutMs: 50 });
    try {
      await expect(emulator.deliverEvent({ type: 'app_mention', text: 'x' })).rejects.toThrow(/Socket Mode connection/);
    } finally {
      await emulator.close();
    }
  });
});
