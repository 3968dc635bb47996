/**
 * Each server's way of failing becomes one line that names the cause and what to do: an error chunk
 * inside the stream, llama.cpp's and vLLM's context overflow, a missing model (Ollama, OpenRouter,
 * with the models the server offers), and keep-alive comments that are no failure at all.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/core/errors.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { ContextTooLongError } from '../../../src/core/provider/server-errors.js';
import { collect, llamaCppChunk, SSE_HEADERS, sseBody, textOf, vllmChunk } from './sse-fixtures.js';

const HOST = 'http://models.test:8080';
const request: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };

function model(modelId = 'qwen2.5-coder:7b') {
  return createOpenAICompatibleModel({ providerId: 'test', baseURL: `${HOST}/v1`, modelId, retryBaseDelayMs: 1, maxRetries: 0 });
}

async function failure(modelId?: string): Promise<ModelError> {
  try {
    await collect(model(modelId).stream(request));
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('the stream did not fail');
}

beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
});
afterEach(() => nock.cleanAll());
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

const oneLine = (text: string) => expect(text).not.toMatch(/\n/);

describe('errors inside a stream', () => {
  it('names the cause of an error chunk sent after finish_reason length', async () => {
    const body =
      sseBody([vllmChunk({ role: 'assistant', content: 'A long answer' }), vllmChunk({}, 'length')], { done: false }) +
      'data: {"error":{"message":"Token limit reached","type":"invalid_request_error","code":400}}\n\n';
    nock(HOST).post('/v1/chat/completions').reply(200, body, SSE_HEADERS);
    const error = await failure();
    expect(error.message).toContain('Token limit reached');
    expect(error.message).not.toMatch(/could not be read/);
    expect(error.code).toBe('model_length');
    oneLine(error.message);
  });

  it("names vLLM's flat error object inside a stream", async () => {
    const body = `${sseBody([vllmChunk({ role: 'assistant', content: 'Hi' })], { done: false })}data: {"object":"error","message":"CUDA out of memory while decoding","type":"InternalServerError","param":null,"code":500}\n\n`;
    nock(HOST).post('/v1/chat/completions').reply(200, body, SSE_HEADERS);
    const error = await failure();
    expect(error.message).toContain('CUDA out of memory while decoding');
    expect(error.message).toMatch(/stopped the answer/);
  });

  it('ignores comment lines, keep-alives and extra fields', async () => {
    const body = [
      ': OPENROUTER PROCESSING\n\n',
      `data: ${JSON.stringify({ ...llamaCppChunk({ content: 'Hel' }), timings: { predicted_per_second: 41.5 }, usage: { prompt_tokens: 3, completion_tokens: 1 } })}\n\n`,
      ': ping\n\n',
      `data: ${JSON.stringify({ ...llamaCppChunk({ content: 'lo' }, 'stop'), stop_reason: null, matched_stop: 151645 })}\n\n`,
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 }, timings: { predicted_per_second: 42.25, prompt_per_second: 900 } })}\n\n`,
      'data: [DONE]\n\n',
    ].join('');
    nock(HOST).post('/v1/chat/completions').reply(200, body, SSE_HEADERS);
    const parts = await collect(model().stream(request));
    expect(textOf(parts)).toBe('Hello');
    // Usage repeated in every chunk counts once: the last one, with the server's measured speed.
    expect(parts.filter((part) => part.type === 'usage')).toEqual([
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2, generationTokensPerSecond: 42.25, promptTokensPerSecond: 900 } },
    ]);
  });
});

describe('error bodies', () => {
  it("reads llama.cpp's exceed_context_size_error with its token counts", async () => {
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(400, {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 9000,
          n_ctx: 8192,
        },
      });
    const error = await failure();
    expect(error).toBeInstanceOf(ContextTooLongError);
    expect(error).toMatchObject({ promptTokens: 9000, contextWindow: 8192, code: 'context_too_long' });
    expect(error.message).toMatch(/too long.*9000 tokens for a context of 8192.*start a new thread/);
    oneLine(error.message);
  });

  it("reads vLLM's flat context-length error", async () => {
    nock(HOST).post('/v1/chat/completions').reply(400, {
      object: 'error',
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    const error = await failure();
    expect(error).toMatchObject({ promptTokens: 5000, contextWindow: 4096, code: 'context_too_long' });
  });

  it('names the models Ollama offers when the model is not found', async () => {
    nock(HOST).post('/v1/chat/completions').reply(404, { error: 'model "llama9" not found, try pulling it first' });
    nock(HOST)
      .get('/v1/models')
      .reply(200, {
        object: 'list',
        data: [
          { id: 'qwen2.5-coder:7b', object: 'model', owned_by: 'library' },
          { id: 'nomic-embed-text:latest', object: 'model', owned_by: 'library' },
          { id: 'llama3.2:3b', object: 'model', owned_by: 'library' },
        ],
      });
    const error = await failure('llama9');
    expect(error.code).toBe('model_not_found');
    expect(error.message).toContain('has no model "llama9"');
    expect(error.message).toContain('try pulling it first');
    expect(error.message).toContain('It offers: qwen2.5-coder:7b, llama3.2:3b');
    oneLine(error.message);
  });

  it("reads OpenRouter's No endpoints found, and still says what to do when the list cannot be read", async () => {
    nock(HOST)
      .post('/v1/chat/completions')
      .reply(404, { error: { message: 'No endpoints found for foo/bar.', code: 404 } });
    nock(HOST).get('/v1/models').reply(500, 'down');
    const error = await failure('foo/bar');
    expect(error.code).toBe('model_not_found');
    expect(error.message).toMatch(/has no model "foo\/bar" \("No endpoints found for foo\/bar\."\)\. Choose a model it has/);
  });

  it('drops reasoning_effort when Ollama says the model does not think, and answers', async () => {
    const bodies: Record<string, unknown>[] = [];
    nock(HOST)
      .post('/v1/chat/completions', (body) => {
        bodies.push(body);
        return true;
      })
      .reply(400, { error: { message: '"qwen2.5-coder:7b" does not support thinking', type: 'invalid_request_error' } })
      .post('/v1/chat/completions', (body) => {
        bodies.push(body);
        return true;
      })
      .reply(200, sseBody([llamaCppChunk({ content: 'ok' }, 'stop')]), SSE_HEADERS);
    const parts = await collect(model().stream({ ...request, effort: 'low' }));
    expect(textOf(parts)).toBe('ok');
    expect(bodies.map((body) => 'reasoning_effort' in body)).toEqual([true, false]);
  });
});
