/** `tsuka doctor` with several model servers: each with ✓ and its model, or ✗ and the fix. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDoctor } from '../../../src/cli/doctor-command.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { testAppConfig } from '../../support/test-app-config.js';

let home: string;
let servers: ScriptedModelServer[];
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-doctor-servers-'));
  servers = [await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' }), await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' })];
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(home, { recursive: true, force: true });
});

async function doctor(baseURLs: string): Promise<{ status: number; output: string }> {
  let output = '';
  const status = await runDoctor({
    io: { stdout: (text) => (output += text), stderr: (text) => (output += text), environment: {}, workingDirectory: home },
    config: testAppConfig(home, baseURLs, { TSUKA_SANDBOX: 'none', TSUKA_LLM_CONCURRENCY: '2' }),
  });
  return { status, output };
}

describe('tsuka doctor with several model servers', () => {
  it('lists each server with ✓ and its model; a silent one is ✗ with the fix', async () => {
    const [a, b] = servers as [ScriptedModelServer, ScriptedModelServer];
    const all = await doctor(`${a.baseURL},${b.baseURL}`);
    expect(all.output).toContain(`✓ TSUKA_LLM_BASE_URL server 1 at ${a.baseURL}: 1 model(s), would use qwen2.5-coder:7b`);
    expect(all.output).toContain(`✓ TSUKA_LLM_BASE_URL server 2 at ${b.baseURL}: 1 model(s), would use qwen2.5-coder:7b`);
    expect(all.output).toContain('· 2 of 2 servers answer; generations are spread over those that do, 2 at once on each');
    expect(all.status).toBe(0);

    await b.close();
    const one = await doctor(`${a.baseURL},${b.baseURL}`);
    expect(one.output).toContain(`✓ TSUKA_LLM_BASE_URL server 1 at ${a.baseURL}`);
    expect(one.output).toMatch(
      /✗ TSUKA_LLM_BASE_URL server 2 at http:\/\/127\.0\.0\.1:\d+\/v1: not reachable\n\s+→ start it, or remove it from TSUKA_LLM_BASE_URL/,
    );
    expect(one.status).toBe(1);
  });

  it('says so when the servers would use different models', async () => {
    const other = await startScriptedModelServer({ modelId: 'llama3.1:8b' });
    servers.push(other);
    const { output, status } = await doctor(`${servers[0]!.baseURL},${other.baseURL}`);
    expect(output).toMatch(
      /✗ the model servers would use different models \(.*qwen2\.5-coder:7b, .*llama3\.1:8b\)\n\s+→ load the same model on each, or set TSUKA_LLM_MODEL/,
    );
    expect(status).toBe(1);
  });
});
