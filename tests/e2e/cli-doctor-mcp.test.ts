import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { demoStdioEntry } from '../support/mcp/demo-mcp-entries.js';

let server: ScriptedModelServer | undefined;
let home: string | undefined;
afterEach(async () => {
  await server?.close();
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
          demo: { command: stdio.command, args: stdio.args, sandbox: false },
          broken: { command: stdio.command, args: stdio.args, sandbox: false, env: { DEMO_MCP_FAIL_START: '1' } },
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
});
