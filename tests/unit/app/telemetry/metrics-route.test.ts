/** `GET /metrics`: open on loopback, refused elsewhere without TSUKA_METRICS_TOKEN, Bearer token when set. */
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../../../src/app/http-server.js';
import { isLoopbackHost, metricsRoute } from '../../../../src/app/telemetry/metrics-route.js';
import { readTelemetryConfig } from '../../../../src/config/telemetry-config.js';
import { silentLogger } from '../../../../src/core/logger.js';

const TOKEN = 'a-long-metrics-token-0123456789';
let server: HttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The route as the app mounts it; `host` is what TSUKA_HTTP_HOST says (the test server itself stays on 127.0.0.1). */
async function serve(host: string, token?: string): Promise<string> {
  const route = metricsRoute({
    host,
    token,
    logger: silentLogger,
    scrape: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'tsuka_replicas 1\n' }),
  });
  server = await startHttpServer({
    port: 0,
    logger: silentLogger,
    routes: { 'GET /metrics': route },
    health: () => ({}),
    ready: async () => ({ ready: true, checks: {} }),
  });
  return `http://127.0.0.1:${server.port}/metrics`;
}

describe('/metrics access', () => {
  it('answers without a token when the HTTP server is on loopback', async () => {
    const response = await fetch(await serve('127.0.0.1'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('tsuka_replicas 1\n');
  });

  it('refuses every scrape when bound to 0.0.0.0 without TSUKA_METRICS_TOKEN, and says what to set', async () => {
    const response = await fetch(await serve('0.0.0.0'), { headers: { authorization: 'Bearer guess' } });
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/TSUKA_METRICS_TOKEN is not set/);
  });

  it('bound elsewhere with a token: only the right Bearer token reads it', async () => {
    const url = await serve('0.0.0.0', TOKEN);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: TOKEN } })).status).toBe(401);
    const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('tsuka_replicas 1');
  });

  it('a token set is asked for on loopback too', async () => {
    expect((await fetch(await serve('127.0.0.1', TOKEN))).status).toBe(401);
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '127.0.0.53', 'localhost', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'tsuka.example'].some(isLoopbackHost)).toBe(false);
  });
});

describe('telemetry configuration', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT; a short token is refused', () => {
    const problems: string[] = [];
    expect(readTelemetryConfig({}, problems)).toEqual({});
    readTelemetryConfig({ TSUKA_METRICS_TOKEN: 'short' }, problems);
    expect(problems).toEqual([expect.stringMatching(/TSUKA_METRICS_TOKEN is shorter than 16 characters/)]);
  });

  it('reads the OTLP endpoint, protocol, service name and headers', () => {
    const problems: string[] = [];
    const config = readTelemetryConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%20def' },
      problems,
    );
    expect(problems).toEqual([]);
    expect(config.otlp).toEqual({
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/json',
      serviceName: 'tsuka',
      headers: { 'x-api-key': 'abc def' },
    });
    readTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }, problems);
    expect(problems).toEqual([expect.stringMatching(/OTEL_EXPORTER_OTLP_PROTOCOL="thrift" is not valid/)]);
  });
});
