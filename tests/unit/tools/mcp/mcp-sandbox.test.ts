/**
 * Stdio MCP servers start through the command sandbox (issue 17): under bubblewrap a server sees
 * its working folder and a read-only system, not the data folder, the bot's checkout or the bot's
 * processes. The server here is a few lines of plain JSON-RPC over stdio with no dependency, written
 * into the workspace (the sandbox's only folder besides the system); `"sandbox": false` starts one
 * directly, on the host.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../../../src/core/safety/select-sandbox.js';
import { sandboxedStdioLauncher } from '../../../../src/core/tools/mcp/launch-stdio-server.js';
import { createMcpToolSource, type McpToolSource } from '../../../../src/core/tools/mcp/mcp-tool-source.js';
import { parseMcpConfig } from '../../../../src/core/tools/mcp/mcp-config.js';
import { createTestToolContext, type TestToolContext } from '../tool-test-context.js';

/** tools/list → one tool `peek` that reads a file and lists /proc; tools/call → its result as text. */
const SERVER = `
const fs = require('node:fs');
let buffer = '';
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    if (request.id === undefined) continue;
    if (request.method === 'initialize') send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'peek', version: '1' } } });
    else if (request.method === 'tools/list') send({ id: request.id, result: { tools: [{ name: 'peek', description: 'read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }] } });
    else if (request.method === 'tools/call') {
      let text;
      try { text = 'read: ' + fs.readFileSync(request.params.arguments.path, 'utf8'); } catch (error) { text = 'unreadable: ' + error.code; }
      const pids = fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).length;
      send({ id: request.id, result: { content: [{ type: 'text', text: text + ' · processes: ' + pids }] } });
    } else send({ id: request.id, error: { code: -32601, message: 'unknown method' } });
  }
});
`;

const bubblewrapAvailable = (await probeSandbox(createBubblewrapSandbox({ network: true, hiddenPaths: [] }))) === undefined;

let source: McpToolSource | undefined;
let tools: TestToolContext | undefined;
let outside: string | undefined;
afterEach(async () => {
  await source?.close();
  await tools?.cleanup();
  if (outside) await rm(outside, { recursive: true, force: true });
  source = tools = outside = undefined;
});

async function peekThrough(sandboxed: boolean, secretPath: string): Promise<string> {
  tools = await createTestToolContext({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp' } });
  await writeFile(path.join(tools.root, 'peek-server.cjs'), SERVER);
  const sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [path.dirname(secretPath)] });
  const servers = parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        peek: { command: process.execPath, args: [path.join(tools.root, 'peek-server.cjs')], risk: 'SAFE', ...(sandboxed ? {} : { sandbox: false }) },
      },
    }),
    'mcp.json',
  );
  source = createMcpToolSource({
    servers,
    childEnv: tools.context.childEnv,
    workingDirectory: tools.root,
    logger: createMemoryLogger(),
    launchStdio: sandboxedStdioLauncher(sandbox),
  });
  await source.start();
  expect(source.statuses()[0]).toMatchObject({ name: 'peek', state: 'ready' });
  const result = await source.registry.execute('mcp__peek__peek', { path: secretPath }, tools.context);
  return result.output;
}

describe.skipIf(!bubblewrapAvailable)(
  `MCP stdio servers in the command sandbox${bubblewrapAvailable ? '' : ' — skipped: bubblewrap cannot run here'}`,
  { timeout: 60_000 },
  () => {
    it('a sandboxed server cannot read the bot\'s data folder and sees only its own processes; an entry with "sandbox": false runs on the host', async () => {
      outside = await mkdtemp(path.join(os.tmpdir(), 'tsuka-mcp-data-'));
      await mkdir(outside, { recursive: true });
      const secret = path.join(outside, 'tsuka.sqlite');
      await writeFile(secret, 'SLACK_BOT_TOKEN=xoxb-in-the-data-folder');

      const sandboxed = await peekThrough(true, secret);
      expect(sandboxed).toMatch(/^unreadable: ENOENT · processes: [1-3]$/);
      await source!.close();
      await tools!.cleanup();

      const direct = await peekThrough(false, secret);
      // Read on the host (its token shape is still masked in what the model gets).
      expect(direct).toMatch(/^read: SLACK_BOT_TOKEN=\[secret masked\] · processes: \d+$/);
      expect(Number(/processes: (\d+)/.exec(direct)![1])).toBeGreaterThan(3);
    });
  },
);
