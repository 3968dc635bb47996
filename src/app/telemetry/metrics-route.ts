/**
 * `GET /metrics`. On a loopback HTTP server (the default) anyone on this machine may read it;
 * bound elsewhere (`TSUKA_HTTP_HOST=0.0.0.0` in a container) it answers only with
 * `Authorization: Bearer $TSUKA_METRICS_TOKEN`, and without a token set it refuses every request
 * (saying what to set). A token, once set, is asked for on loopback too.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/logger.js';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsRoute(options: {
  host: string;
  token?: string;
  scrape(): Promise<{ contentType: string; body: string }>;
  logger: Logger;
}): (request: IncomingMessage, response: ServerResponse) => void {
  const expected = options.token === undefined ? undefined : digest(`Bearer ${options.token}`);
  const open = isLoopbackHost(options.host);
  return (request, response) => {
    if (expected) {
      const given = request.headers.authorization;
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        response
          .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="tsuka-metrics"' })
          .end('/metrics needs Authorization: Bearer <TSUKA_METRICS_TOKEN>.\n');
        return;
      }
    } else if (!open) {
      response
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(
          `/metrics is refused: the HTTP server listens on ${options.host}, not loopback, and TSUKA_METRICS_TOKEN is not set. Set it and scrape with Authorization: Bearer <token>.\n`,
        );
      return;
    }
    options.scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => {
        options.logger.error('metrics could not be collected', { error });
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  };
}
