/**
 * MCP benchmark (not a test): time to start the demo stdio server and list its tools, and the
 * latency of tool calls through the catalogue (validation, call, conversion, masking), stdio and
 * Streamable HTTP. Run: `npx tsx bench/mcp-bench.ts`.
 * Targets on the reference machine: start ≤ 1,500 ms; call p95 ≤ 20 ms (stdio) and ≤ 30 ms (HTTP).
 */
import { createMcpToolSource, type McpToolSource } from '../src/core/tools/mcp/mcp-tool-source.js';
import { createSecretMasker } from '../src/core/safety/secret-mask.js';
import { silentLogger } from '../src/core/logger.js';
import type { ToolContext } from '../src/core/tools/tool.js';
import { demoHttpEntry, demoStdioEntry } from '../tests/support/mcp/demo-mcp-entries.js';
import { startDemoMcpHttpServer } from '../tests/support/mcp/demo-mcp-http.js';
import { benchSize } from './bench-size.js';

const CALLS = benchSize(300, 5);
const START_TARGET_MS = 1500;
const STDIO_P95_TARGET_MS = 20;
const HTTP_P95_TARGET_MS = 30;

const context = {
  signal: new AbortController().signal,
  maskSecrets: createSecretMasker({}),
  childEnv: {},
  runId: 'bench',
  agentName: 'bench',
  logger: silentLogger,
  services: {},
} as unknown as ToolContext;

async function callLatencies(source: McpToolSource, tool: string): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < CALLS; index++) {
    const started = performance.now();
    const input = source.registry.validate(tool, { a: index, b: 1 });
    await source.registry.execute(tool, input, context);
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

const p = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
const line = (label: string, value: number, goal: number): string =>
  `${label.padEnd(34)} ${value.toFixed(1).padStart(8)} ms   goal ≤ ${goal} ms ${value <= goal ? '✓' : '✗'}`;

const started = performance.now();
const stdio = createMcpToolSource({ servers: [demoStdioEntry()], childEnv: { PATH: process.env.PATH }, workingDirectory: process.cwd() });
await stdio.start();
const startMs = performance.now() - started;
const stdioLatencies = await callLatencies(stdio, 'mcp__demo__add');
await stdio.close();

const server = await startDemoMcpHttpServer();
const http = createMcpToolSource({ servers: [demoHttpEntry(server.url)], childEnv: {}, workingDirectory: process.cwd() });
await http.start();
const httpLatencies = await callLatencies(http, 'mcp__web__add');
await http.close();
await server.close();

process.stdout.write(
  [
    'MCP tool source',
    line('stdio server start + tools/list', startMs, START_TARGET_MS),
    line(`stdio call p50 (${CALLS} calls)`, p(stdioLatencies, 0.5), STDIO_P95_TARGET_MS),
    line('stdio call p95', p(stdioLatencies, 0.95), STDIO_P95_TARGET_MS),
    line(`HTTP call p50 (${CALLS} calls)`, p(httpLatencies, 0.5), HTTP_P95_TARGET_MS),
    line('HTTP call p95', p(httpLatencies, 0.95), HTTP_P95_TARGET_MS),
    '',
  ].join('\n'),
);
