/** The demo MCP server over Streamable HTTP on 127.0.0.1, one transport per session. */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createDemoMcpServer } from './demo-mcp-server.mjs';

export interface DemoHttpServer {
  url: string;
  /** Headers of every request received (to check the entry's `headers` are sent). */
  headers: IncomingMessage['headers'][];
  close(): Promise<void>;
}

export async function startDemoMcpHttpServer(): Promise<DemoHttpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const headers: IncomingMessage['headers'][] = [];
  const http = createServer((request, response) => {
    headers.push(request.headers);
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      transport = created;
      void createDemoMcpServer({ onCrash: () => http.closeAllConnections() }).connect(created);
    }
    transport.handleRequest(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
