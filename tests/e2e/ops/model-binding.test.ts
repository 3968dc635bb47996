/**
 * Model settings are binding, and a model server that appears later is used: a dead configured URL
 * is never replaced by another server (even one listening on a catalogue port), `ask` fails with one
 * line, `start` keeps running, says so, and answers from the first mention after the server is up.
 */
import { createServer } from 'node:net';
import { mkdtemp, rm, symlink, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAsk } from '../../../src/cli/ask-command.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { testAppConfig } from '../../support/test-app-config.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { startPlaygroundHarness, type PlaygroundHarness } from '../playground/playground-harness.js';

let decoy: ScriptedModelServer;
let root: string;
let home: string;
let harness: PlaygroundHarness | undefined;
let later: ScriptedModelServer | undefined;

/** A package root whose catalogue's Ollama entry is the decoy: what discovery would find on a default port. */
async function rootWithDecoy(decoyBaseURL: string): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'tsuka-root-'));
  for (const name of ['roles', 'traits', 'characters', 'teams', 'tools_schemas']) await symlink(path.join(PACKAGE_ROOT, name), path.join(folder, name));
  const catalogue = JSON.parse(await readFile(path.join(PACKAGE_ROOT, 'providers.json'), 'utf8')) as { id: string; baseURL: string }[];
  await writeFile(
    path.join(folder, 'providers.json'),
    JSON.stringify(catalogue.filter((entry) => entry.id === 'ollama').map((entry) => ({ ...entry, baseURL: decoyBaseURL }))),
  );
  return folder;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeEach(async () => {
  decoy = await startScriptedModelServer({ modelId: 'decoy-model:7b' });
  root = await rootWithDecoy(decoy.baseURL);
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-binding-'));
});
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await later?.close();
  later = undefined;
  await decoy.close();
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

async function ask(baseURL: string): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const config = testAppConfig(home, baseURL, {}, root);
  const status = await runAsk(['geordi', 'hello'], config, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    environment: {},
    workingDirectory: home,
  });
  return { status, stdout, stderr };
}

describe('binding model settings', () => {
  it('ask: a dead configured URL fails with one line and exit 3; the server on a default port receives nothing', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const result = await ask(dead);
    expect(result.status).toBe(3);
    expect(result.stderr.trim().split('\n')).toEqual([
      `The model server ${dead} (TSUKA_LLM_BASE_URL) does not answer. Start it, or change TSUKA_LLM_BASE_URL.`,
    ]);
    expect(decoy.hits).toEqual([]);
    // Without a configured URL, discovery would have used it: the decoy is a real candidate.
    decoy.enqueue({ text: 'decoy answer' });
    expect((await ask('')).stdout).toContain('decoy answer');
  });

  it('start: keeps running and says so; a server started later answers the next mention', async () => {
    const port = await freePort();
    const configured = `http://127.0.0.1:${port}/v1`;
    harness = await startPlaygroundHarness({ modelBaseURL: configured, rootDirectory: root });
    expect(harness.logs.join('')).toContain(`Model: none — TSUKA_LLM_BASE_URL ${configured} does not answer; trying again every 10 s and at every mention.`);
    const ready = await fetch(`${harness.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, model: null, modelStatus: expect.stringContaining('does not answer') });
    expect(await (await harness.get('/api/status')).json()).toMatchObject({
      ok: false,
      message: expect.stringContaining(`${configured} (TSUKA_LLM_BASE_URL) does not answer`),
    });
    const first = await harness.say('@geordi hello');
    await harness.waitFor(() => harness!.thread(first).some((message) => message.text.includes('does not answer')));

    later = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b', port });
    later.enqueue({ text: 'Here now.' });
    const second = await harness.say('@geordi hello again');
    await harness.waitFor(() => harness!.thread(second).some((message) => message.text.includes('Here now.')));
    expect(await (await harness.get('/api/status')).json()).toMatchObject({ ok: true, message: expect.stringContaining('qwen2.5-coder:7b') });
    expect((await fetch(`${harness.baseUrl}/readyz`)).status).toBe(200);
    expect(decoy.hits).toEqual([]);
  });

  it('start: probes on its own while no model answers, and the page banner goes away', async () => {
    const port = await freePort();
    harness = await startPlaygroundHarness({ modelBaseURL: `http://127.0.0.1:${port}/v1`, rootDirectory: root, modelProbeIntervalMs: 100 });
    expect(await (await harness.get('/api/status')).json()).toMatchObject({ ok: false });
    later = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b', port });
    await harness.waitFor(() => harness!.logs.some((line) => line.includes('found after start')));
    expect(await (await harness.get('/api/status')).json()).toMatchObject({ ok: true, message: expect.stringContaining('qwen2.5-coder:7b') });
    expect(later.requests).toHaveLength(0);
  });
});
