import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../../src/core/errors.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { discoverModel } from '../../../src/core/provider/discovery.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { DEFAULT_SCRIPTED_TEXT, startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { collect, reasoningOf, textOf, toolCallsOf } from './sse-fixtures.js';

const request: ModelRequest = { messages: [{ role: 'user', content: 'hello' }] };
let server: ScriptedModelServer;

beforeEach(async () => {
  server = await startScriptedModelServer({ modelId: 'scripted-coder-7b' });
});
afterEach(async () => {
  await server.close();
});

const model = () => createOpenAICompatibleModel({ providerId: 'scripted', baseURL: server.baseURL, modelId: 'scripted-coder-7b', retryBaseDelayMs: 1 });

describe('scripted model server', () => {
  it('listens on 127.0.0.1 and lists its model for discovery', async () => {
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const found = await discoverModel({ catalogue: [], configured: { baseURL: server.baseURL }, apiKeys: {} });
    expect(found).toMatchObject({ modelId: 'scripted-coder-7b', class: 'LOCAL', baseURL: server.baseURL });
  });

  it('streams scripted text in chunks, with reasoning and usage, and records the request body', async () => {
    server.enqueue({ reasoning: 'short plan', text: 'Hello from the script', chunkSize: 4, usage: { prompt_tokens: 12, completion_tokens: 5 } });
    const parts = await collect(model().stream(request));
    expect(textOf(parts)).toBe('Hello from the script');
    expect(parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThan(1);
    expect(reasoningOf(parts)).toBe('short plan');
    expect(parts.slice(-2)).toEqual([
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 5 } },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ model: 'scripted-coder-7b', stream: true, messages: [{ role: 'user', content: 'hello' }] });
    expect(server.pendingReplies()).toBe(0);
  });

  it('streams tool calls with arguments split into chunks', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'read_file', arguments: { path: 'src/app.ts' } },
        { name: 'list_dir', arguments: '{"path":"."}' },
      ],
      chunkSize: 3,
    });
    const parts = await collect(model().stream(request));
    expect(toolCallsOf(parts).map((call) => [call.toolCall.name, call.input])).toEqual([
      ['read_file', { path: 'src/app.ts' }],
      ['list_dir', { path: '.' }],
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('fails a request with a scripted status, answers replies in order, and computes function replies', async () => {
    server.enqueue({ status: 500 });
    server.enqueue((body) => ({ text: `you sent ${(body as { messages: unknown[] }).messages.length} message(s)` }));
    const parts = await collect(model().stream(request));
    expect(textOf(parts)).toBe('you sent 1 message(s)');
    expect(server.requests).toHaveLength(2);
  });

  it('answers a visible default text when the queue is empty', async () => {
    expect(textOf(await collect(model().stream(request)))).toBe(DEFAULT_SCRIPTED_TEXT);
  });

  it('survives a client that aborts mid-stream and serves the next request', async () => {
    server.enqueue({ text: 'a'.repeat(40), chunkSize: 1, delayMsBetweenChunks: 20 });
    server.enqueue({ text: 'still here' });
    const controller = new AbortController();
    const aborted = (async () => {
      for await (const part of model().stream({ ...request, signal: controller.signal })) {
        if (part.type === 'text-delta') controller.abort();
      }
    })();
    await expect(aborted).rejects.toBeInstanceOf(AbortedError);
    expect(textOf(await collect(model().stream(request)))).toBe('still here');
  });

  it('resolves waitForRequests from the request handler', async () => {
    server.enqueue({ text: 'one' });
    server.enqueue({ text: 'two' });
    const waiting = server.waitForRequests(2);
    let resolved = false;
    void waiting.then(() => (resolved = true));
    await collect(model().stream(request));
    await Promise.resolve();
    expect(resolved).toBe(false);
    await collect(model().stream(request));
    await waiting;
    expect(server.requests).toHaveLength(2);
  });

  it('drops the replies not taken on clearQueue, so the next request gets the default text', async () => {
    server.enqueue({ text: 'left over' });
    server.enqueue({ text: 'left over too' });
    expect(server.clearQueue()).toBe(2);
    expect(server.pendingReplies()).toBe(0);
    expect(textOf(await collect(model().stream(request)))).toBe(DEFAULT_SCRIPTED_TEXT);
  });

  it('reset forgets unused replies and seen requests, so a reply one test queued cannot answer the next', async () => {
    server.enqueue({ text: 'first test' });
    server.enqueue({ text: 'left over by the first test' });
    server.setVision(true);
    expect(textOf(await collect(model().stream(request)))).toBe('first test');
    server.reset();
    expect(server.pendingReplies()).toBe(0);
    expect(server.requests).toEqual([]);
    expect(server.hits).toEqual([]);
    expect((await fetch(server.baseURL.replace(/\/v1$/, '/props'))).status).toBe(404);
    server.enqueue({ text: 'second test' });
    expect(textOf(await collect(model().stream(request)))).toBe('second test');
    expect(server.requests).toHaveLength(1);
  });
});
