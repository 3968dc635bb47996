/** The process's HTTP server on TSUKA_HTTP_PORT (127.0.0.1 by default): health, readiness, Slack HTTP mode. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from '../core/logger.js';
import { TsukaError } from '../core/errors.js';

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
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(describeListenFailure(error, options.port, host)));
    server.listen(options.port, host, () => resolve());
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

/** A port that cannot be used, in one sentence naming the port and the setting. */
function describeListenFailure(error: NodeJS.ErrnoException, port: number, host: string): TsukaError {
  if (error.code === 'EADDRINUSE') {
    return new TsukaError(
      'port_in_use',
      `Port ${port} on ${host} is already in use (TSUKA_HTTP_PORT): stop the program that uses it, or set TSUKA_HTTP_PORT to a free port.`,
      { cause: error },
    );
  }
  if (error.code === 'EACCES') {
    return new TsukaError('port_denied', `Port ${port} on ${host} may not be used by this user (TSUKA_HTTP_PORT): choose a port above 1023.`, { cause: error });
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new TsukaError('host_unavailable', `${host} is not an address of this machine (TSUKA_HTTP_HOST): use 127.0.0.1, or 0.0.0.0 for every interface.`, {
      cause: error,
    });
  }
  return new TsukaError('http_listen_failed', `The HTTP server could not listen on ${host}:${port} (${error.message}).`, { cause: error });
}

/**
 * Fails at once, with the same sentence as the server would, when `port` cannot be listened on —
 * before the start spends seconds loading the roster, the store and the model (port 0: nothing to check).
 */
export async function checkPortFree(port: number, host = '127.0.0.1'): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => reject(describeListenFailure(error, port, host)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
