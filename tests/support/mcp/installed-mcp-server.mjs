#!/usr/bin/env node
/**
 * The entry point of `demo-installed-mcp`, the package `installed-mcp-package.ts` writes into a
 * node_modules folder the way npm does: it imports the SDK by its bare name, so it starts only
 * where Node can resolve that from the node_modules tree it lies in. One tool, `echo`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'demo-installed-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Says the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: `echo: ${String(request.params.arguments?.text)}` }],
}));
await server.connect(new StdioServerTransport());
