/**
 * Issue 35: stdio MCP servers under the sandbox a start chooses with no settings — bubblewrap with
 * the user-mode network (slirp4netns), as CI and any host that follows the README has it. Each
 * server is configured as people write it: `node /path/server.cjs`, a server installed with npm and
 * started as `node <folder>/node_modules/<pkg>/dist/index.js`, and `npx -y <pkg>` (resolved from
 * the workspace's node_modules, so no registry is needed: the download from the registry is not
 * covered here). Each starts, lists its tools and answers a call.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSandboxConfig } from '../../../../src/config/sandbox-config.js';
import { createMemoryLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import type { CommandSandbox } from '../../../../src/core/safety/command-sandbox.js';
import { probeSandbox, selectCommandSandbox } from '../../../../src/core/safety/select-sandbox.js';
import { findProgram } from '../../../../src/core/safety/sandbox-network.js';
import { mcpServerFilesOptions, sandboxedStdioLauncher } from '../../../../src/core/tools/mcp/launch-stdio-server.js';
import { parseMcpConfig } from '../../../../src/core/tools/mcp/mcp-config.js';
import { createMcpToolSource, type McpToolSource } from '../../../../src/core/tools/mcp/mcp-tool-source.js';
import { INSTALLED_MCP_PACKAGE, installMcpPackage } from '../../../support/mcp/installed-mcp-package.js';
import { createTestToolContext, type TestToolContext } from '../tool-test-context.js';

/** No dependency: plain JSON-RPC over stdio, one tool `shout`. */
const PLAIN_SERVER = `
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
    if (request.method === 'initialize') send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'plain', version: '1' } } });
    else if (request.method === 'tools/list') send({ id: request.id, result: { tools: [{ name: 'shout', description: 'upper case', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
    else if (request.method === 'tools/call') send({ id: request.id, result: { content: [{ type: 'text', text: String(request.params.arguments.text).toUpperCase() }] } });
    else send({ id: request.id, error: { code: -32601, message: 'unknown method' } });
  }
});
`;

const bubblewrapUnavailable = await probeSandbox(createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }));
const slirpInstalled = findProgram('slirp4netns', '/usr/local/bin:/usr/bin:/bin') !== undefined;

describe.skipIf(bubblewrapUnavailable !== undefined || !slirpInstalled)(
  `stdio MCP servers under the default sandbox${bubblewrapUnavailable ? ` (skipped: bwrap does not work here: ${bubblewrapUnavailable})` : slirpInstalled ? '' : ' (skipped: slirp4netns is not installed)'}`,
  { timeout: 60_000 },
  () => {
    let base: string;
    let home: string;
    let data: string;
    let workspace: string;
    let sandbox: CommandSandbox;
    let tools: TestToolContext;
    let source: McpToolSource | undefined;

    beforeAll(async () => {
      base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'tsuka-mcp-default-')));
      home = path.join(base, 'home');
      data = path.join(base, 'data');
      workspace = path.join(base, 'workspace');
      for (const folder of [home, data, workspace]) await mkdir(folder, { recursive: true });
      const problems: string[] = [];
      // No settings at all: what `tsuka start` chooses on this host.
      const config = readSandboxConfig({ setting: () => undefined, problems, hiddenPaths: [home, data, process.cwd()] });
      expect(problems).toEqual([]);
      sandbox = await selectCommandSandbox(config);
      expect(sandbox.network).toBe('user');
      tools = await createTestToolContext();
    });
    afterEach(async () => {
      await source?.close();
      source = undefined;
    });
    afterAll(async () => {
      await tools.cleanup();
      await rm(base, { recursive: true, force: true });
    });

    async function start(entry: Record<string, unknown>): Promise<McpToolSource> {
      const servers = parseMcpConfig(JSON.stringify({ mcpServers: { server: { risk: 'SAFE', ...entry } } }), 'mcp.json');
      source = createMcpToolSource({
        servers,
        childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' },
        workingDirectory: workspace,
        logger: createMemoryLogger(),
        launchStdio: sandboxedStdioLauncher(sandbox, mcpServerFilesOptions({ dataDirectory: data, sandbox: { hiddenPaths: [home, data, process.cwd()] } })),
        backoff: { initialMs: 3_600_000, maxMs: 3_600_000 },
      });
      await source.start();
      return source;
    }

    it('a plain `node /path/server.cjs` entry starts, lists its tools and answers a call', async () => {
      const script = path.join(home, 'tools', 'plain', 'server.cjs');
      await mkdir(path.dirname(script), { recursive: true });
      await writeFile(script, PLAIN_SERVER);
      const started = await start({ command: 'node', args: [script] });
      expect(started.statuses()[0]).toMatchObject({ name: 'server', state: 'ready' });
      expect(started.statuses()[0]!.tools.map((tool) => tool.name)).toEqual(['shout']);
      const result = await started.registry.execute('mcp__server__shout', { text: 'hello' }, tools.context);
      expect(result.output).toBe('HELLO');
    });

    it('a server installed with npm, started as `node <folder>/node_modules/<pkg>/dist/index.js`, finds its imports', async () => {
      const entry = await installMcpPackage(path.join(home, 'mcp-servers'));
      const started = await start({ command: 'node', args: [entry] });
      expect(started.statuses()[0]).toMatchObject({ name: 'server', state: 'ready' });
      expect(started.statuses()[0]!.tools.map((tool) => tool.name)).toEqual(['echo']);
      const result = await started.registry.execute('mcp__server__echo', { text: 'from node_modules' }, tools.context);
      expect(result.output).toBe('echo: from node_modules');
    });

    it("an `npx -y <pkg>` entry as the servers' READMEs write it starts, with its cache in its own home", async () => {
      await installMcpPackage(workspace);
      // The entry's own env keeps npm's once-a-week update check off the internet (tests reach 127.0.0.1 only).
      const started = await start({ command: 'npx', args: ['-y', INSTALLED_MCP_PACKAGE], env: { npm_config_update_notifier: 'false' } });
      expect(started.statuses()[0]).toMatchObject({ name: 'server', state: 'ready' });
      const result = await started.registry.execute('mcp__server__echo', { text: 'via npx' }, tools.context);
      expect(result.output).toBe('echo: via npx');
    });
  },
);
