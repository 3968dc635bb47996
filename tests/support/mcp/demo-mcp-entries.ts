/** MCP server entries for the tests: the demo server over stdio (plain Node) or HTTP. */
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../../src/core/tools/mcp/mcp-config.js';

const DEMO_STDIO_SCRIPT = fileURLToPath(new URL('./demo-mcp-stdio.mjs', import.meta.url));

export function demoStdioEntry(overrides: Partial<McpServerConfig> & { env?: Record<string, string> } = {}): McpServerConfig {
  return {
    name: 'demo',
    transport: 'stdio',
    command: process.execPath,
    args: [DEMO_STDIO_SCRIPT],
    env: {},
    risk: { default: 'RESTRICTED', tools: { add: 'SAFE' } },
    requiredTier: 'SMALL',
    timeoutMs: 15_000,
    ...overrides,
  } as McpServerConfig;
}

export function demoHttpEntry(url: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'web',
    transport: 'http',
    url,
    headers: { authorization: 'Bearer demo-http-token-0123456789' },
    risk: { default: 'RESTRICTED', tools: {} },
    requiredTier: 'SMALL',
    timeoutMs: 15_000,
    ...overrides,
  } as McpServerConfig;
}
