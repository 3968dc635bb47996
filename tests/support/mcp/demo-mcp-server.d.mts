import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/** The demo MCP server (see demo-mcp-server.mjs). */
export function createDemoMcpServer(options?: { onCrash?: () => void }): Server;
