/**
 * Stdio MCP servers configured the plain way start under the sandbox (issue 26): a server whose
 * script lies outside the workspace — in a folder the sandbox hides, like the bot's home — sees
 * its own folder read-only; its home persists across starts (npx/uvx caches); an entry inside
 * the data folder fails with a message naming the hidden path and the server's first error line;
 * ajv prints nothing about the `uri` format.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import { probeSandbox } from '../../../../src/core/safety/select-sandbox.js';
import { mcpServerFilesOptions, sandboxedStdioLauncher } from '../../../../src/core/tools/mcp/launch-stdio-server.js';
import { createMcpToolSource, type McpToolSource } from '../../../../src/core/tools/mcp/mcp-tool-source.js';
import { parseMcpConfig } from '../../../../src/core/tools/mcp/mcp-config.js';

/** No dependency: requires a file beside itself, counts its starts in $HOME, offers `hello` (with a `uri` input). */
const SERVER = `
const fs = require('node:fs');
const path = require('node:path');
const { greeting } = require('./lib.cjs');
const counter = path.join(process.env.HOME, 'starts');
const starts = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0) + 1;
fs.writeFileSync(counter, String(starts));
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
    if (request.method === 'initialize') send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'files', version: '1' } } });
    else if (request.method === 'tools/list') send({ id: request.id, result: { tools: [{ name: 'hello', description: greeting + ' starts: ' + starts, inputSchema: { type: 'object', properties: { link: { type: 'string', format: 'uri' } } } }] } });
    else send({ id: request.id, error: { code: -32601, message: 'unknown method' } });
  }
});
`;

const bubblewrapAvailable = (await probeSandbox(createBubblewrapSandbox({ network: true, hiddenPaths: [] }))) === undefined;

let base: string | undefined;
let source: McpToolSource | undefined;
afterEach(async () => {
  await source?.close();
  if (base) await rm(base, { recursive: true, force: true });
  source = base = undefined;
  vi.restoreAllMocks();
});

/** A host like the bot's: a home and a data folder (both hidden), a workspace, and a server in the home. */
async function host() {
  base = await mkdtemp(path.join(os.tmpdir(), 'tsuka-mcp-files-'));
  const home = path.join(base, 'home');
  const data = path.join(base, 'data');
  const workspace = path.join(base, 'workspace');
  const server = path.join(home, 'tools', 'files-server');
  for (const folder of [server, data, workspace]) await mkdir(folder, { recursive: true });
  await writeFile(path.join(server, 'index.cjs'), SERVER);
  await writeFile(path.join(server, 'lib.cjs'), "exports.greeting = 'Hello from beside the entry.';");
  await writeFile(path.join(data, 'tsuka.sqlite'), 'the bot state');
  return { home, data, workspace, script: path.join(server, 'index.cjs') };
}

async function startServer(where: Awaited<ReturnType<typeof host>>, script: string, extra: Record<string, unknown> = {}): Promise<McpToolSource> {
  const sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [where.home, where.data] });
  const files = mcpServerFilesOptions({ dataDirectory: where.data, sandbox: { hiddenPaths: [where.home, where.data] } });
  const servers = parseMcpConfig(JSON.stringify({ mcpServers: { files: { command: 'node', args: [script], risk: 'SAFE', ...extra } } }), 'mcp.json');
  source = createMcpToolSource({
    servers,
    childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: where.home },
    workingDirectory: where.workspace,
    logger: createMemoryLogger(),
    launchStdio: sandboxedStdioLauncher(sandbox, files),
    backoff: { initialMs: 3_600_000, maxMs: 3_600_000 },
  });
  await source.start();
  return source;
}

describe.skipIf(!bubblewrapAvailable)(
  `MCP servers start as their README says${bubblewrapAvailable ? '' : ' — skipped: bubblewrap cannot run here'}`,
  { timeout: 60_000 },
  () => {
    it('a server whose script lies in a hidden folder outside the workspace starts, sees its own folder, and keeps its home across starts', async () => {
      const where = await host();
      const first = await startServer(where, where.script);
      expect(first.statuses()[0]).toMatchObject({ name: 'files', state: 'ready' });
      expect(first.statuses()[0]!.tools[0]!.description).toBe('Hello from beside the entry. starts: 1');
      await first.close();

      const second = await startServer(where, where.script);
      expect(second.statuses()[0]!.tools[0]!.description).toBe('Hello from beside the entry. starts: 2');
      // The home is the server's own folder under the data folder, not the bot's home.
      expect(await readFile(path.join(where.data, 'mcp-home', 'files', 'starts'), 'utf8')).toBe('2');
    });

    it("an entry inside the data folder fails with the hidden path and the server's first error line, not Node's version", async () => {
      const where = await host();
      const inData = path.join(where.data, 'server.cjs');
      await writeFile(inData, SERVER);
      const failed = await startServer(where, inData);
      const status = failed.statuses()[0]!;
      expect(status.state).toBe('failed');
      expect(status.error).toContain(`${inData} is inside the data folder (${where.data}), which the sandbox hides`);
      expect(status.error).toMatch(/Error: Cannot find module/);
      expect(status.error).toContain('"sandbox": false');
      expect(status.error).not.toMatch(/Node\.js v\d/);
    });
  },
);

describe('MCP tool schemas', () => {
  it('a tool input with format "uri" prints no ajv warning', async () => {
    const warn = vi.spyOn(console, 'warn');
    const where = await host();
    const started = await startServer(where, where.script, { sandbox: false });
    expect(started.statuses()[0]).toMatchObject({ state: 'ready' });
    expect(warn.mock.calls.flat().join('\n')).not.toMatch(/unknown format/);
  });
});
