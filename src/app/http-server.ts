/** The process's HTTP server on TSUKA_HTTP_PORT (127.0.0.1 by default): health, readiness, Slack HTTP mode. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from '../core/logger.js';

export interface HttpServer {
  port: number;
  close(): Promise<void>;
}

export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void;

export async function startHttpServer(options: {
  port: number;
  host?: string;
  logger: Logger;
  routes: Record<string, RouteHandler>;
  health: () => Record<string, unknown>;
  /** Readiness: 200 when `ready` is true, else 503; the checks are returned as JSON either way. */
  ready: () => Promise<{ ready: boolean; checks: Record<string, unknown> }>;
}): Promise<HttpServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const route = options.routes[`${request.method} ${path}`];
    if (route) return route(request, response);
    if (request.method === 'GET' && path === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(options.health()));
      return;
    }
    if (request.method === 'GET' && path === '/readyz') {
      options.ready().then(
        ({ ready, checks }) => response.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready, ...checks })),
        (error: unknown) => {
          options.logger.error('readiness check failed', { error });
          response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: false }));
        },
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.debug('http server listening', { port });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
