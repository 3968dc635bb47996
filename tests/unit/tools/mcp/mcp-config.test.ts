import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMcpConfig } from '../../../../src/core/tools/mcp/mcp-config.js';
import { isMcpToolName, mcpToolName } from '../../../../src/core/tools/mcp/mcp-tool-name.js';
import { convertMcpResult, MCP_RESULT_MAX_CHARS } from '../../../../src/core/tools/mcp/mcp-result.js';
import { ConfigError, loadConfig } from '../../../../src/config/load-config.js';

const parse = (value: unknown) => parseMcpConfig(JSON.stringify(value), 'mcp.json');
const problem = (value: unknown): string => {
  try {
    parse(value);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the file to be rejected');
};

describe('the MCP servers file', () => {
  it('reads stdio and HTTP entries with defaults and TSUKA keys', () => {
    const servers = parse({
      mcpServers: {
        github: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_TOKEN: 'x' },
          roles: ['developer'],
          risk: { get_issue: 'SAFE', '*': 'DANGEROUS' },
          timeoutS: 5,
          startTimeoutS: 30,
        },
        docs: { url: 'https://docs.example/mcp', headers: { authorization: 'Bearer y' }, risk: 'SAFE' },
        off: { command: 'x', disabled: true },
      },
    });
    expect(servers).toEqual([
      {
        name: 'github',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_TOKEN: 'x' },
        roles: ['developer'],
        risk: { default: 'DANGEROUS', tools: { get_issue: 'SAFE' } },
        requiredTier: 'SMALL',
        timeoutMs: 5000,
        startTimeoutMs: 30_000,
        sandbox: true,
      },
      {
        name: 'docs',
        transport: 'http',
        url: 'https://docs.example/mcp',
        headers: { authorization: 'Bearer y' },
        risk: { default: 'SAFE', tools: {} },
        requiredTier: 'SMALL',
        timeoutMs: 60_000,
        startTimeoutMs: 5000,
      },
    ]);
    expect(parse({ mcpServers: { a: { command: 'x' } } })[0]!.risk.default).toBe('RESTRICTED');
  });

  it('rejects a bad file with one line naming the file and the key', () => {
    expect(problem({ servers: {} })).toBe('mcp.json: mcpServers is missing: write {"mcpServers": {"name": {"command": …} | {"url": …}}}.');
    expect(problem({ mcpServers: { github: { command: 'npx', timeoutS: 'soon' } } })).toBe('mcp.json: mcpServers.github.timeoutS must be number.');
    expect(problem({ mcpServers: { github: { command: 'npx', risk: { get_issue: 'LOW' } } } })).toMatch(
      /^mcp\.json: mcpServers\.github\.risk must be SAFE, RESTRICTED, DANGEROUS or an object of them per tool\.$/,
    );
    expect(problem({ mcpServers: { github: { command: 'npx', url: 'http://x' } } })).toBe(
      'mcp.json: mcpServers.github has both "command" and "url": a server is either stdio or HTTP.',
    );
    expect(problem({ mcpServers: { github: { args: [] } } })).toBe('mcp.json: mcpServers.github needs "command" (stdio) or "url" (Streamable HTTP).');
    expect(problem({ mcpServers: { github: { command: 'npx', enviroment: {} } } })).toBe(
      'mcp.json: mcpServers.github.enviroment is not a known key for a stdio server.',
    );
    expect(problem({ mcpServers: { 'my server': { command: 'npx' } } })).toBe(
      'mcp.json: mcpServers."my server" is not a valid server name: use 1–24 letters, digits, _ or -.',
    );
    expect(parseMcpConfig.bind(null, '{ nope', 'mcp.json')).toThrow(/^mcp\.json is not valid JSON/);
    for (const message of [problem({ servers: {} }), problem({ mcpServers: { g: { url: 'ftp://x' } } })]) expect(message.split('\n')).toHaveLength(1);
  });
});

describe('TSUKA_MCP_CONFIG in the configuration', () => {
  let folder: string | undefined;
  afterEach(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
    folder = undefined;
  });
  const load = (environment: Record<string, string>) => loadConfig({ environment, workingDirectory: folder!, rootDirectory: folder! });

  it('reads mcp.json from the working directory when present, names the file of a bad one, and requires a named file', async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'tsuka-mcp-config-'));
    expect(load({}).mcp).toEqual({ servers: [] });
    await writeFile(path.join(folder, 'mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'x' } } }));
    expect(load({}).mcp.servers.map((server) => server.name)).toEqual(['a']);
    await writeFile(path.join(folder, 'other.json'), JSON.stringify({ mcpServers: { a: { command: 'x', timeoutS: -1 } } }));
    expect(() => load({ TSUKA_MCP_CONFIG: 'other.json' })).toThrow(ConfigError);
    try {
      load({ TSUKA_MCP_CONFIG: 'other.json' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([`TSUKA_MCP_CONFIG: ${path.join(folder, 'other.json')}: mcpServers.a.timeoutS must be > 0.`]);
    }
    expect(() => load({ TSUKA_MCP_CONFIG: 'missing.json' })).toThrow(/missing\.json could not be read \(ENOENT\)/);
  });
});

describe('MCP tool names', () => {
  it('keep the server visible and always fit ^[a-zA-Z0-9_-]{1,64}$ without collisions', () => {
    expect(mcpToolName('github', 'get_issue')).toBe('mcp__github__get_issue');
    const dotted = mcpToolName('docs', 'search.pages');
    const underscored = mcpToolName('docs', 'search_pages');
    expect(dotted).toMatch(/^mcp__docs__search_pages_[0-9a-f]{6}$/);
    expect(dotted).not.toBe(underscored);
    const long = mcpToolName('a-very-long-server-name', 'x'.repeat(80));
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(long).not.toBe(mcpToolName('a-very-long-server-name', `${'x'.repeat(79)}y`));
    expect(isMcpToolName(long)).toBe(true);
    expect(isMcpToolName('read_file')).toBe(false);
  });
});

describe('MCP results', () => {
  it('keep text, describe images and resources, pass errors, and cap huge output', () => {
    expect(
      convertMcpResult({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ output: 'a\n\nb', isError: false, summary: '2 text' });
    expect(convertMcpResult({ content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }).output).toMatch(
      /^\[audio returned by the tool: audio\/wav, 3 B/,
    );
    expect(convertMcpResult({ content: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } }] }).output).toBe(
      '[resource file:///a.txt]\nhello',
    );
    expect(convertMcpResult({ content: [{ type: 'text', text: 'no such issue' }], isError: true })).toMatchObject({
      output: 'Error: no such issue',
      isError: true,
    });
    expect(convertMcpResult({ content: [], structuredContent: { count: 2 } }).output).toBe('{\n  "count": 2\n}');
    const huge = convertMcpResult({ content: [{ type: 'text', text: 'x'.repeat(MCP_RESULT_MAX_CHARS + 10) }] }).output;
    expect(huge.length).toBeLessThan(MCP_RESULT_MAX_CHARS + 100);
    expect(huge).toMatch(/cut: the result had 200010 characters/);
  });
});
