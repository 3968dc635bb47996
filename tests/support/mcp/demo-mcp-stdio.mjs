/**
 * The demo MCP server over stdio, run by the tests as `node demo-mcp-stdio.mjs`.
 * `DEMO_MCP_FAIL_START=1` makes it fail at start the way a misconfigured server does.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createDemoMcpServer } from './demo-mcp-server.mjs';

if (process.env.DEMO_MCP_FAIL_START === '1') {
  process.stderr.write('demo: DEMO_TOKEN is missing, cannot start\n');
  process.exit(2);
}
await createDemoMcpServer().connect(new StdioServerTransport());
