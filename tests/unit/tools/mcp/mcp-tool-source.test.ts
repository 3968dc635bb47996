import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../../src/core/logger.js';
import { createMcpToolSource, type McpToolSource } from '../../../../src/core/tools/mcp/mcp-tool-source.js';
import type { McpServerConfig } from '../../../../src/core/tools/mcp/mcp-config.js';
import { createTestToolContext, type TestToolContext } from '../tool-test-context.js';
import { demoHttpEntry, demoStdioEntry } from '../../../support/mcp/demo-mcp-entries.js';
import { startDemoMcpHttpServer, type DemoHttpServer } from '../../../support/mcp/demo-mcp-http.js';

const SECRET_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefabcdef', PLAIN_SETTING: 'visible' };

let source: McpToolSource | undefined;
let tools: TestToolContext | undefined;
let http: DemoHttpServer | undefined;
afterEach(async () => {
  await source?.close();
  await tools?.cleanup();
  await http?.close();
  source = tools = http = undefined;
});

async function startSource(servers: McpServerConfig[], logger = createMemoryLogger()): Promise<McpToolSource> {
  tools = await createTestToolContext({ env: SECRET_ENV });
  source = createMcpToolSource({ servers, childEnv: tools.context.childEnv, workingDirectory: tools.root, logger, backoff: { initialMs: 50, maxMs: 200 } });
  await source.start();
  return source;
}

/** Resolves when the source's state satisfies `predicate` (checked on every change). */
function waitForChange(target: McpToolSource, predicate: () => boolean): Promise<void> {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve) => {
    const unsubscribe = target.onChange(() => {
      if (predicate()) {
        unsubscribe();
        resolve();
      }
    });
  });
}

describe('MCP servers as a tool source (stdio)', { timeout: 60_000 }, () => {
  it('lists tools as mcp__<server>__<tool>; validates, classifies, previews, calls; scrubbed env + entry env; images and links as notes', async () => {
    const mcp = await startSource([demoStdioEntry({ env: { DEMO_TOKEN: 'entry-secret-value', DEMO_MODE: 'entry-value' } })]);
    expect(mcp.statuses()[0]).toMatchObject({ name: 'demo', state: 'ready' });
    expect(mcp.registry.names()).toEqual(['mcp__demo__add', 'mcp__demo__crash', 'mcp__demo__grow', 'mcp__demo__picture', 'mcp__demo__read_env']);
    const context = tools!.context;

    expect(() => mcp.registry.validate('mcp__demo__add', { a: 'two', b: 3 })).toThrow(/a/);
    const input = mcp.registry.validate('mcp__demo__add', { a: 2, b: 3 });
    expect(await mcp.registry.classify('mcp__demo__add', input, context)).toMatchObject({ level: 'SAFE' });
    expect(await mcp.registry.classify('mcp__demo__read_env', { name: 'X' }, context)).toMatchObject({ level: 'RESTRICTED' });
    const preview = await mcp.registry.preview('mcp__demo__read_env', { name: 'PLAIN_SETTING' }, context);
    expect(preview.details?.join('\n')).toMatch(/MCP server: demo[\s\S]*Tool: read_env\nArguments: \{"name":"PLAIN_SETTING"\}/);

    expect(await mcp.registry.execute('mcp__demo__add', input, context)).toMatchObject({ output: '5', display: 'demo · 1 text' });

    // The process gets the scrubbed environment plus its entry's env.
    const read = (name: string) => mcp.registry.execute('mcp__demo__read_env', { name }, tools!.context).then((result) => result.output);
    expect(await read('SLACK_BOT_TOKEN')).toBe('SLACK_BOT_TOKEN=(unset)');
    expect(await read('PLAIN_SETTING')).toBe('PLAIN_SETTING=visible');
    expect(await read('DEMO_MODE')).toBe('DEMO_MODE=entry-value');
    // The entry's own secret reaches the server but is masked if the server echoes it.
    expect(await read('DEMO_TOKEN')).toBe('DEMO_TOKEN=[secret masked]');

    // Images and resource links become notes the model can read.
    const result = await mcp.registry.execute('mcp__demo__picture', {}, tools!.context);
    expect(result.output).toContain('Here is the chart.');
    expect(result.output).toMatch(/\[image returned by the tool: image\/png, \d+ B/);
    expect(result.output).toContain('[resource link "chart.png": file:///reports/chart.png (image/png)]');
  });

  it('honours notifications/tools/list_changed', async () => {
    const mcp = await startSource([demoStdioEntry()]);
    const changed = waitForChange(mcp, () => mcp.registry.has('mcp__demo__extra'));
    await mcp.registry.execute('mcp__demo__grow', {}, tools!.context);
    await changed;
    expect((await mcp.registry.execute('mcp__demo__extra', {}, tools!.context)).output).toBe('extra works');
  });

  it('withdraws the tools of a server that dies mid-call, tells the model, logs it and restarts it', async () => {
    const logger = createMemoryLogger();
    const mcp = await startSource([demoStdioEntry()], logger);
    const withdrawn = waitForChange(mcp, () => mcp.statuses()[0]!.state === 'failed');
    const result = await mcp.registry.execute('mcp__demo__crash', {}, tools!.context);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/MCP server "demo" stopped during the call to crash; its tools are withdrawn until it restarts/);
    await withdrawn;
    expect(mcp.registry.has('mcp__demo__add')).toBe(false);
    expect(mcp.groups()[0]).toMatchObject({ label: 'MCP server demo', state: 'failed', tools: [] });
    expect(logger.entries.some((entry) => entry.level === 'warn' && /withdrawn/.test(entry.message) && entry.fields.mcpServer === 'demo')).toBe(true);

    await waitForChange(mcp, () => mcp.statuses()[0]!.state === 'ready');
    expect((await mcp.registry.execute('mcp__demo__add', { a: 1, b: 1 }, tools!.context)).output).toBe('2');
  });

  it('keeps a server that fails to start out of the catalogue, says why, and keeps retrying', async () => {
    const logger = createMemoryLogger();
    const mcp = await startSource([demoStdioEntry({ name: 'broken', env: { DEMO_MCP_FAIL_START: '1' } })], logger);
    const status = mcp.statuses()[0]!;
    expect(status.state).toBe('failed');
    expect(status.error).toMatch(/could not start: .*DEMO_TOKEN is missing, cannot start/);
    expect(mcp.registry.names()).toEqual([]);
    const call = await mcp.registry.execute('mcp__broken__add', { a: 1, b: 2 }, tools!.context);
    expect(call).toMatchObject({ isError: true });
    expect(call.output).toMatch(/The MCP server "broken" is not available \(it could not start/);
    expect(() => mcp.registry.validate('mcp__broken__add', {})).toThrow(/not available/);
    // A restart is attempted (and fails again), with backoff.
    await new Promise<void>((resolve) => {
      const check = () => logger.entries.filter((entry) => /withdrawn/.test(entry.message)).length >= 2 && resolve();
      mcp.onChange(check);
    });
    expect(mcp.statuses()[0]!.failures).toBeGreaterThanOrEqual(2);
  });

  it('reports a command that does not exist as a failure to start', async () => {
    const mcp = await startSource([demoStdioEntry({ name: 'missing', command: '/nonexistent/mcp-server', args: [] } as Partial<McpServerConfig>)]);
    expect(mcp.statuses()[0]).toMatchObject({ state: 'failed' });
    expect(mcp.statuses()[0]!.error).toMatch(/could not start: .*ENOENT/);
  });
});

describe('MCP servers as a tool source (Streamable HTTP)', { timeout: 60_000 }, () => {
  it('connects over HTTP with the entry headers and calls tools', async () => {
    http = await startDemoMcpHttpServer();
    const mcp = await startSource([demoHttpEntry(http.url)]);
    expect(mcp.statuses()[0]).toMatchObject({ state: 'ready', endpoint: `http: ${http.url}` });
    expect((await mcp.registry.execute('mcp__web__add', { a: 20, b: 22 }, tools!.context)).output).toBe('42');
    expect(http.headers.every((headers) => headers.authorization === 'Bearer demo-http-token-0123456789')).toBe(true);
  });
});
