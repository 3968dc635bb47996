import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbortedError, ModelError, ModelTimeoutError } from '../../../src/core/errors.js';
import { createMemoryLogger, silentLogger, type Logger } from '../../../src/core/logger.js';
import type { ModelRequest, ModelStreamPart } from '../../../src/core/model/language-model.js';
import { createOpenAICompatibleModel, type OpenAICompatibleModelOptions } from '../../../src/core/provider/openai-compatible-model.js';
import { collect, controlledBody, SSE_HEADERS, sseBody, textOf, vllmChunk } from './sse-fixtures.js';

const HOST = 'http://models.test:8000';
const request: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };
const okBody = sseBody([vllmChunk({ role: 'assistant', content: 'recovered' }), vllmChunk({}, 'stop')]);

function model(overrides: Partial<OpenAICompatibleModelOptions> = {}) {
  return createOpenAICompatibleModel({ providerId: 'vllm', baseURL: `${HOST}/v1`, modelId: 'm', retryBaseDelayMs: 1, ...overrides });
}

beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.abortPendingRequests();
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('retries', () => {
  it('retries a 500 answered before any part and then streams the answer', async () => {
    const scope = nock(HOST)
      .post('/v1/chat/completions')
      .reply(500, { error: { message: 'CUDA out of memory' } })
      .post('/v1/chat/completions')
      .reply(200, okBody, SSE_HEADERS);
    const logger = createMemoryLogger();
    const parts = await collect(model({ logger }).stream(request));
    expect(textOf(parts)).toBe('recovered');
    expect(scope.isDone()).toBe(true);
    expect(logger.entries.some((entry) => entry.level === 'warn' && entry.fields.status === 500)).toBe(true);
  });

  it('gives up after maxRetries with a ModelError that keeps the cause', async () => {
    nock(HOST)
      .post('/v1/chat/completions')
      .times(2)
      .reply(503, { error: { message: 'loading model' } });
    const error = await collect(model({ maxRetries: 1 }).stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(503);
    expect((error as ModelError).message).toContain(`The model server at ${HOST}/v1`);
    expect((error as ModelError).cause).toBeDefined();
  });

  it('does not retry once parts reached the caller', async () => {
    const body = controlledBody();
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(200, () => body.stream, SSE_HEADERS);
    const retry = nock(HOST).post('/v1/chat/completions').reply(200, okBody, SSE_HEADERS);
    const seen: ModelStreamPart[] = [];
    const run = (async () => {
      for await (const part of model({ maxRetries: 3 }).stream(request)) {
        seen.push(part);
        body.stream.destroy(new Error('socket hang up'));
      }
    })();
    body.send(vllmChunk({ content: 'partial' }));
    await expect(run).rejects.toBeInstanceOf(ModelError);
    expect(textOf(seen)).toBe('partial');
    expect(retry.isDone()).toBe(false);
  });

  it('says in a sentence that a refused connection means the server is not reachable', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const error = await collect(model({ baseURL, maxRetries: 1 }).stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe(`The model server at ${baseURL} is not reachable.`);
    expect((error as ModelError).cause).toBeDefined();
  });
});

describe('timeouts', () => {
  it('fails with ModelTimeoutError(first-token) when the server stalls before the first token', async () => {
    nock(HOST).post('/v1/chat/completions').delay(5_000).reply(200, okBody, SSE_HEADERS);
    const error = await collect(model({ firstTokenTimeoutMs: 200 }).stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).phase).toBe('first-token');
  });

  it('counts the first token, not the headers: an open stream that sends nothing also times out', async () => {
    const body = controlledBody();
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(200, () => body.stream, SSE_HEADERS);
    body.send(vllmChunk({ role: 'assistant', content: '' }));
    const error = await collect(model({ firstTokenTimeoutMs: 200 }).stream(request)).catch((caught: unknown) => caught);
    expect((error as ModelTimeoutError).phase).toBe('first-token');
  });

  it('stops a generation that runs past the generation timeout', async () => {
    const body = controlledBody();
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(200, () => body.stream, SSE_HEADERS);
    body.send(vllmChunk({ content: 'started' }));
    const seen: ModelStreamPart[] = [];
    const run = (async () => {
      for await (const part of model({ generationTimeoutMs: 300 }).stream(request)) seen.push(part);
    })();
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).phase).toBe('generation');
    expect(textOf(seen)).toBe('started');
  });
});

describe('abort', () => {
  it('throws AbortedError when the caller aborts mid-stream', async () => {
    const body = controlledBody();
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(200, () => body.stream, SSE_HEADERS);
    const controller = new AbortController();
    const seen: ModelStreamPart[] = [];
    const run = (async () => {
      for await (const part of model().stream({ ...request, signal: controller.signal })) {
        seen.push(part);
        controller.abort();
      }
    })();
    body.send(vllmChunk({ content: 'first words' }));
    await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(textOf(seen)).toBe('first words');
  });

  it('throws AbortedError while waiting for a retry', async () => {
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(500, { error: { message: 'boom' } });
    let retryStarted!: () => void;
    const waiting = new Promise<void>((resolve) => (retryStarted = resolve));
    // The retry warning is logged right before the wait starts.
    const logger: Logger = { ...silentLogger, warn: (message) => message.includes('retrying') && retryStarted(), child: () => logger };
    const controller = new AbortController();
    const slowRetry = model({ retryBaseDelayMs: 60_000, logger });
    const run = collect(slowRetry.stream({ ...request, signal: controller.signal }));
    await waiting;
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(AbortedError);
  });

  it('throws AbortedError at once for an already aborted signal', async () => {
    const error = await collect(model().stream({ ...request, signal: AbortSignal.abort() })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortedError);
  });
});

describe('rejected sampling parameters', () => {
  it('drops top_k after a 400 naming it, retries once, and never sends it again', async () => {
    const bodies: Record<string, unknown>[] = [];
    const record = (body: Record<string, unknown>): boolean => {
      bodies.push(body);
      return true;
    };
    const scope = nock(HOST)
      .post('/v1/chat/completions', record)
      .reply(400, { error: { message: 'Unrecognized request argument supplied: top_k', type: 'invalid_request_error', param: null } })
      .post('/v1/chat/completions', record)
      .reply(200, okBody, SSE_HEADERS)
      .post('/v1/chat/completions', record)
      .reply(200, okBody, SSE_HEADERS);
    const sampling = model({ samplingDefaults: { top_k: 20, min_p: 0.05 } });
    expect(textOf(await collect(sampling.stream(request)))).toBe('recovered');
    expect(textOf(await collect(sampling.stream(request)))).toBe('recovered');
    expect(scope.isDone()).toBe(true);
    expect(bodies.map((body) => 'top_k' in body)).toEqual([true, false, false]);
    expect(bodies.every((body) => body.min_p === 0.05)).toBe(true);
  });

  it('reads vLLM extra_forbidden answers (no `error` wrapper) and drops the named parameter', async () => {
    const bodies: Record<string, unknown>[] = [];
    nock(HOST)
      .post('/v1/chat/completions', (body: Record<string, unknown>) => bodies.push(body) > 0)
      .reply(400, {
        object: 'error',
        message: "[{'type': 'extra_forbidden', 'loc': ('body', 'repetition_penalty'), 'msg': 'Extra inputs are not permitted'}]",
        type: 'BadRequestError',
        param: null,
        code: 400,
      })
      .post('/v1/chat/completions', (body: Record<string, unknown>) => bodies.push(body) > 0)
      .reply(200, okBody, SSE_HEADERS);
    await collect(model({ samplingDefaults: { repetition_penalty: 1.05 } }).stream(request));
    expect(bodies.map((body) => 'repetition_penalty' in body)).toEqual([true, false]);
  });

  it('does not retry a 400 that names no droppable parameter', async () => {
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(400, { error: { message: 'messages: field required' } });
    const error = await collect(model().stream(request)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toContain('rejected the request (400: messages: field required)');
  });
});
