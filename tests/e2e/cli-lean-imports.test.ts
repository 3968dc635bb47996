/**
 * `tsuka ask` and `tsuka doctor` load only what they use: no platform SDK (@slack/*, discord.js)
 * and nothing under src/adapters/, even when Slack and Discord are configured. The real CLI runs
 * in a child process that records every module it loads.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { TEST_SANDBOX_ENVIRONMENT } from '../support/test-sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROBE = path.join(ROOT, 'tests/support/module-load-probe.mjs');
const PLATFORM_MODULES = /node_modules\/(@slack|discord\.js|@discordjs)\/|\/src\/adapters\//;
/** What only `tsuka start` (or a tool's first call) needs: metrics, traces, Redis, pacing, rendering, pages, pictures. */
const START_ONLY_MODULES =
  /node_modules\/(prom-client|@opentelemetry|@grpc|@keyv\/redis|@redis|bottleneck|markdown-it|linkedom|@mozilla\/readability|turndown|@resvg|croner)\/|\/src\/app\/(telemetry|start-app)/;

let model: ScriptedModelServer;
let home: string;

beforeAll(async () => {
  model = await startScriptedModelServer();
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-lean-'));
});
afterAll(async () => {
  await model.close();
  await rm(home, { recursive: true, force: true });
});

async function runProbe(args: string[]): Promise<{ status: number; output: string; modules: string[] }> {
  const environment = {
    PATH: process.env.PATH,
    HOME: home,
    TSUKA_LLM_BASE_URL: model.baseURL,
    TSUKA_DATA_DIR: path.join(home, 'data'),
    TSUKA_WORKSPACE: path.join(home, 'workspace'),
    ...TEST_SANDBOX_ENVIRONMENT,
    // Both platforms configured (unreachable ports): the commands still must not load their SDKs.
    SLACK_BOT_TOKEN: 'xoxb-1-lean',
    SLACK_APP_TOKEN: 'xapp-1-lean',
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
    DISCORD_BOT_TOKEN: 'lean-discord-token',
    DISCORD_API_URL: 'http://127.0.0.1:9/api',
  };
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, ...args], { cwd: home, env: environment, timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: number; output: string; modules: string[] };
}

describe('lean CLI', () => {
  it('tsuka ask answers without loading a platform SDK or an adapter', async () => {
    model.enqueue({ text: 'lean hello' });
    const result = await runProbe(['ask', 'geordi', 'say hello']);
    expect(result.output).toContain('lean hello');
    expect(result.status).toBe(0);
    // The probe sees the modules the command did load (so an empty list cannot pass).
    expect(result.modules.some((url) => url.endsWith('/src/cli/ask-command.ts'))).toBe(true);
    expect(result.modules.some((url) => url.includes('node_modules/openai/'))).toBe(true);
    expect(result.modules.filter((url) => PLATFORM_MODULES.test(url))).toEqual([]);
    // Nor what only the running bot needs: the direct command's ≤ 400 ms leave no room for them.
    expect(result.modules.filter((url) => START_ONLY_MODULES.test(url))).toEqual([]);
    // No MCP servers configured: the MCP SDK (and zod under it) is not loaded either.
    expect(result.modules.filter((url) => /node_modules\/(@modelcontextprotocol|zod)\//.test(url))).toEqual([]);
  });

  it('tsuka doctor checks both platforms without loading their SDKs', async () => {
    const result = await runProbe(['doctor']);
    expect(result.output).toMatch(/Slack API at .* not reachable/);
    expect(result.output).toMatch(/Discord API at .* not reachable/);
    expect(result.modules.some((url) => url.endsWith('/src/cli/doctor-command.ts'))).toBe(true);
    expect(result.modules.filter((url) => PLATFORM_MODULES.test(url))).toEqual([]);
  });
});
