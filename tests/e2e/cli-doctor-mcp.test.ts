import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { demoStdioEntry } from '../support/mcp/demo-mcp-entries.js';
import { startDemoMcpHttpServer, type DemoHttpServer } from '../support/mcp/demo-mcp-http.js';

let server: ScriptedModelServer | undefined;
let home: string | undefined;
let mcpHttp: DemoHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  await mcpHttp?.close();
  mcpHttp = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  server = home = undefined;
});

describe('tsuka doctor and MCP servers', { timeout: 60_000 }, () => {
  it('names each server: ✓ with its tool count, ✗ with the reason; and says how the tier is chosen without a profile', async () => {
    server = await startScriptedModelServer({ modelId: 'qwen2.5-coder-32b' });
    home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-doctor-mcp-'));
    // The demo server lives in the checkout, hidden from the command sandbox: declared trusted ("sandbox": false).
    const stdio = demoStdioEntry() as { command: string; args: string[] };
    await writeFile(
      path.join(home, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          // A start budget for a loaded machine: this test reads the failure's words, not the start time
          // (under the full suite's load a node process took longer than the default 5 s to start).
          demo: { command: stdio.command, args: stdio.args, sandbox: false, startTimeoutS: 60 },
          broken: { command: stdio.command, args: stdio.args, sandbox: false, startTimeoutS: 60, env: { DEMO_MCP_FAIL_START: '1' } },
        },
      }),
    );
    let stdout = '';
    const status = await main(['doctor'], {
      stdout: (text) => void (stdout += text),
      stderr: () => undefined,
      environment: {
        PATH: process.env.PATH,
        HOME: home,
        TSUKA_LLM_BASE_URL: server.baseURL,
        TSUKA_DATA_DIR: path.join(home, 'data'),
        TSUKA_WORKSPACE: path.join(home, 'workspace'),
      },
      workingDirectory: home,
    });
    expect(status).toBe(1);
    expect(stdout).toMatch(/\nMCP servers\n/);
    expect(stdout).toMatch(/✓ MCP server demo: 5 tool\(s\) \(stdio: /);
    expect(stdout).toMatch(/✗ MCP server broken: it could not start: .*DEMO_TOKEN is missing, cannot start\n {4}→ check its entry in .*mcp\.json/);
    expect(stdout).toMatch(/qwen2\.5-coder-32b: no measured profile \(run `tsuka benchmark`\); tier MEDIUM guessed from the name/);
  });

  it('prints no secret of an HTTP entry: neither its URL’s password nor its query token nor its header (issue 41)', async () => {
    server = await startScriptedModelServer({ modelId: 'qwen2.5-coder:7b' });
    mcpHttp = await startDemoMcpHttpServer();
    home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-doctor-mcp-secrets-'));
    const password = 'pw-Doctor-9f3k2m7q';
    const token = 'tok-Doctor-4h8j1n6x';
    const header = 'hdr-Doctor-2v5c8b1z';
    const url = new URL(mcpHttp.url);
    url.username = 'tsuka';
    url.password = password;
    url.searchParams.set('token', token);
    // A second entry on a port nothing listens on: its ✗ line and its fix line name the URL too.
    const dead = new URL(url);
    dead.port = '9';
    await writeFile(
      path.join(home, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          remote: { url: url.href, headers: { Authorization: `Bearer ${header}` } },
          gone: { url: dead.href, headers: { Authorization: `Bearer ${header}` } },
        },
      }),
    );
    let stdout = '';
    let stderr = '';
    await main(['doctor'], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      environment: {
        PATH: process.env.PATH,
        HOME: home,
        TSUKA_LLM_BASE_URL: server.baseURL,
        TSUKA_DATA_DIR: path.join(home, 'data'),
        TSUKA_WORKSPACE: path.join(home, 'workspace'),
      },
      workingDirectory: home,
    });
    expect(stdout).toMatch(/MCP server remote: /);
    expect(stdout).toMatch(/MCP server gone: /);
    for (const secret of [password, token, header]) {
      expect(stdout).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }
  });
});
