/**
 * What `tsuka start` prints for a new team (issue 40): the lines a newcomer can place, each once —
 * not the memory upgrade of a fresh install, the approval key's source, or the sandbox line twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app/start-app.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { testAppConfig } from '../support/test-app-config.js';

let home: string;
let model: ScriptedModelServer;
beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-start-output-'));
  model = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
});
afterAll(async () => {
  await model.close();
  await rm(home, { recursive: true, force: true });
});

describe('tsuka start on a fresh install', () => {
  it('prints no internal bookkeeping, and the sandbox once', async () => {
    const lines: string[] = [];
    const write = (text: string) => lines.push(...text.split('\n').filter(Boolean));
    const config = testAppConfig(home, model.baseURL, { TSUKA_LOG_LEVEL: 'info', TSUKA_LOG_FORMAT: 'pretty' });
    const app = await startApp({ config, io: { stdout: write, stderr: write, environment: {}, workingDirectory: home } });
    await app.stop();
    const text = lines.join('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(text).not.toMatch(/memory upgraded to conversation scopes/);
    expect(text).not.toMatch(/approvals signed/);
    const summary = app.engine.sandbox.summary;
    expect(lines.filter((line) => line.includes(summary))).toHaveLength(1);
  });
});
