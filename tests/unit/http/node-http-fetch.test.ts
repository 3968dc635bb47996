import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHttpFetch } from '../../../src/core/http/node-http-fetch.js';
import { createOpenAIClientPool } from '../../../src/core/provider/openai-client-pool.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;
const handlers = new Map<string, Handler>();
const sockets = new Set<unknown>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => handlers.get(new URL(request.url ?? '/', 'http://x').pathname)?.(request, body, response));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('node-http-fetch', () => {
  it('sends method, headers and body, and reuses one kept-alive connection', async () => {
    const seen: string[] = [];
    handlers.set('/echo', (request, body, response) => {
      seen.push(`${request.method} ${request.headers.authorization} ${request.headers['content-length']} ${body}`);
      response.setHeader('content-type', 'application/json');
      response.setHeader('x-request-id', 'r1');
      response.end(JSON.stringify({ ok: true }));
    });
    const fetch = createNodeHttpFetch();
    const before = sockets.size;
    for (let index = 0; index < 3; index += 1) {
      const response = await fetch(`${base}/echo`, { method: 'POST', headers: new Headers({ Authorization: 'Bearer k' }), body: '{"a":"é"}' });
      expect(response.ok).toBe(true);
      expect(response.headers.get('X-Request-Id')).toBe('r1');
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(seen).toEqual(Array(3).fill('POST Bearer k 10 {"a":"é"}'));
    expect(sockets.size - before).toBe(1);
  });

  it('gives each chunk of a stream as it arrives, not at the end', async () => {
    let finish!: () => void;
    handlers.set('/sse', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      finish = () => response.end('data: two\n\n');
    });
    const response = await createNodeHttpFetch()(`${base}/sse`);
    const iterator = (response.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe('data: one\n\n');
    finish();
    expect(String((await iterator.next()).value)).toBe('data: two\n\n');
    expect((await iterator.next()).done).toBe(true);
  });

  it('decodes a gzip body and follows a redirect', async () => {
    handlers.set('/moved', (_request, _body, response) => {
      response.writeHead(307, { location: '/zipped' });
      response.end();
    });
    handlers.set('/zipped', (request, body, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      response.end(gzipSync(`${request.method} ${body}`));
    });
    const response = await createNodeHttpFetch()(`${base}/moved`, { method: 'POST', body: 'again' });
    expect(response.redirected).toBe(true);
    expect(await response.text()).toBe('POST again');
    // Slack's WebClient asks for `redirect: 'error'`: a redirect is then a failure, not followed.
    await expect(createNodeHttpFetch()(`${base}/moved`, { method: 'POST', body: 'x', redirect: 'error' })).rejects.toThrow(TypeError);
    const manual = await createNodeHttpFetch()(`${base}/moved`, { redirect: 'manual' });
    expect([manual.status, manual.headers.get('location')]).toEqual([307, '/zipped']);
  });

  it('returns an error status as a standard Response with its body', async () => {
    handlers.set('/fail', (_request, _body, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"loading model"}}');
    });
    const response = await createNodeHttpFetch()(`${base}/fail`);
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: { message: 'loading model' } });
  });

  it('rejects an unreachable server as fetch does: TypeError with the socket error as cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await createNodeHttpFetch()(`http://127.0.0.1:${port}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(((error as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('ends a streaming body with an AbortError when its signal aborts, and rejects an aborted request', async () => {
    handlers.set('/hang', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    });
    const controller = new AbortController();
    const fetch = createNodeHttpFetch();
    const response = await fetch(`${base}/hang`, { signal: controller.signal });
    const iterator = (response.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe('data: first\n\n');
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
    await expect(fetch(`${base}/hang`, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('is what the openai client pool uses by default: a streamed completion arrives whole', async () => {
    let fetchHeader: string | undefined = 'not seen';
    handlers.set('/v1/chat/completions', (request, body, response) => {
      // Node's fetch (undici) adds `sec-fetch-mode`; this transport does not.
      fetchHeader = request.headers['sec-fetch-mode'] as string | undefined;
      expect(JSON.parse(body)).toMatchObject({ model: 'm', stream: true });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['Hel', 'lo'])
        response.write(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${word}"}}]}\n\n`);
      response.end('data: [DONE]\n\n');
    });
    const client = createOpenAIClientPool().clientFor({ baseURL: `${base}/v1` });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello');
    expect(fetchHeader).toBeUndefined();
  });

  it('sends a request once more on a new connection when the kept-alive one was closed by the server as it went', async () => {
    let served = 0;
    const requestsOn = new Map<unknown, number>();
    handlers.set('/flaky', (request, body, response) => {
      const count = (requestsOn.get(request.socket) ?? 0) + 1;
      requestsOn.set(request.socket, count);
      // The server drops an idle connection just as the second request arrives on it.
      if (count === 2) {
        request.socket.destroy();
        return;
      }
      served += 1;
      response.end(`ok ${body}`);
    });
    const fetch = createNodeHttpFetch();
    expect(await (await fetch(`${base}/flaky`, { method: 'POST', body: 'one' })).text()).toBe('ok one');
    expect(await (await fetch(`${base}/flaky`, { method: 'POST', body: 'two' })).text()).toBe('ok two');
    expect(served).toBe(2);
    expect(requestsOn.size).toBe(2);
  });
});
