/**
 * A small MCP server written with the SDK's own `Server` class, for the tests: `add` (text),
 * `picture` (an image and a resource link), `read_env` (what its environment holds), `crash`
 * (the process dies mid-call) and `grow` (adds a tool and sends `tools/list_changed`).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** One pixel of PNG, base64. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * Plain JavaScript so that the stdio server starts without a TypeScript loader (tests spawn it often).
 * @param {{ onCrash?: () => void }} [options] what `crash` does: exit the process (stdio) or what the host wants (HTTP)
 */
export function createDemoMcpServer(options = {}) {
  const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  let grown = false;
  const tools = () => [
    {
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    { name: 'picture', description: 'Returns a picture and a link.', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'read_env',
      description: 'Returns the value of an environment variable.',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    { name: 'crash', description: 'Makes the server die.', inputSchema: { type: 'object', properties: {} } },
    { name: 'grow', description: 'Adds the tool "extra".', inputSchema: { type: 'object', properties: {} } },
    ...(grown ? [{ name: 'extra', description: 'Appeared later.', inputSchema: { type: 'object', properties: {} } }] : []),
  ];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const input = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'add':
        return { content: [{ type: 'text', text: `${Number(input.a) + Number(input.b)}` }] };
      case 'picture':
        return {
          content: [
            { type: 'text', text: 'Here is the chart.' },
            { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
            { type: 'resource_link', uri: 'file:///reports/chart.png', name: 'chart.png', mimeType: 'image/png' },
          ],
        };
      case 'read_env':
        return { content: [{ type: 'text', text: `${String(input.name)}=${process.env[String(input.name)] ?? '(unset)'}` }] };
      case 'crash':
        (options.onCrash ?? (() => process.exit(3)))();
        return new Promise(() => {});
      case 'grow':
        grown = true;
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'grown' }] };
      case 'extra':
        return { content: [{ type: 'text', text: 'extra works' }] };
      default:
        return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
    }
  });
  return server;
}
