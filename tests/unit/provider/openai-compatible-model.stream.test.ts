import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { collect, llamaCppChunk, ollamaChunk, reasoningOf, SSE_HEADERS, sseBody, textOf, toolCallsOf, usageChunk, vllmChunk } from './sse-fixtures.js';

const HOST = 'http://models.test:8080';
const request: ModelRequest = { messages: [{ role: 'user', content: 'hi' }] };

function model() {
  return createOpenAICompatibleModel({ providerId: 'test', baseURL: `${HOST}/v1`, modelId: 'qwen2.5-coder:7b', retryBaseDelayMs: 1 });
}

function replyWith(chunks: object[]) {
  return nock(HOST).post('/v1/chat/completions').reply(200, sseBody(chunks), SSE_HEADERS);
}

beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => nock.cleanAll());
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('streaming text and usage', () => {
  it('streams Ollama text deltas, then usage from the empty-choices chunk, then finish last', async () => {
    const scope = replyWith([ollamaChunk({ content: 'Hel' }), ollamaChunk({ content: 'lo' }), ollamaChunk({ content: '' }, 'stop'), usageChunk(42, 7)]);
    const parts = await collect(model().stream(request));
    expect(textOf(parts)).toBe('Hello');
    expect(parts.slice(-2)).toEqual([
      { type: 'usage', usage: { promptTokens: 42, completionTokens: 7 } },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('maps finish_reason length', async () => {
    replyWith([vllmChunk({ role: 'assistant', content: 'cut' }), vllmChunk({}, 'length')]);
    const parts = await collect(model().stream(request));
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });
});

describe('tool calls', () => {
  it('assembles a vLLM tool call whose name and arguments are split mid-token', async () => {
    replyWith([
      vllmChunk({ role: 'assistant', content: '' }),
      vllmChunk({ tool_calls: [{ index: 0, id: 'chatcmpl-tool-5f1e', type: 'function', function: { name: 'read_' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { name: 'file' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: 'th": "src/ap' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: 'p.ts", "offs' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: 'et": 10}' } }] }),
      vllmChunk({}, 'tool_calls'),
      usageChunk(300, 25),
    ]);
    const parts = await collect(model().stream(request));
    const [call, ...others] = toolCallsOf(parts);
    expect(others).toHaveLength(0);
    expect(call).toEqual({
      type: 'tool-call',
      toolCall: { id: 'chatcmpl-tool-5f1e', name: 'read_file', arguments: '{"path": "src/app.ts", "offset": 10}' },
      input: { path: 'src/app.ts', offset: 10 },
    });
    expect(parts.map((part) => part.type)).toEqual(['tool-call', 'usage', 'finish']);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('assembles two parallel llama.cpp tool calls interleaved by index', async () => {
    replyWith([
      llamaCppChunk({ role: 'assistant', content: null }),
      llamaCppChunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'list_dir', arguments: '' } }] }),
      llamaCppChunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
      llamaCppChunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"README.md"}' } }] }),
      llamaCppChunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"src"}' } }] }),
      llamaCppChunk({}, 'tool_calls'),
    ]);
    const calls = toolCallsOf(await collect(model().stream(request)));
    expect(calls.map((call) => [call.toolCall.id, call.toolCall.name, call.input])).toEqual([
      ['call_a', 'list_dir', { path: 'src' }],
      ['call_b', 'read_file', { path: 'README.md' }],
    ]);
  });

  it('treats an Ollama tool call reported with finish_reason stop as tool-calls', async () => {
    replyWith([
      ollamaChunk({
        content: '',
        tool_calls: [{ id: 'call_x1', index: 0, type: 'function', function: { name: 'get_ps_info', arguments: '{}' } }],
      }),
      ollamaChunk({ content: '' }, 'stop'),
      usageChunk(10, 5),
    ]);
    const parts = await collect(model().stream(request));
    expect(toolCallsOf(parts)[0]?.input).toEqual({});
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('repairs near-JSON arguments and sends the repaired text onward', async () => {
    replyWith([
      vllmChunk({
        tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'write_file', arguments: '```json\n{"path": "a.txt", "content": "x",}\n```' } }],
      }),
      vllmChunk({ tool_calls: [{ index: 1, id: 't2', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/ma' } }] }),
      vllmChunk({}, 'length'),
    ]);
    const [fenced, truncated] = toolCallsOf(await collect(model().stream(request)));
    expect(fenced).toMatchObject({ input: { path: 'a.txt', content: 'x' }, repaired: true });
    expect(JSON.parse(fenced!.toolCall.arguments)).toEqual({ path: 'a.txt', content: 'x' });
    expect(truncated).toMatchObject({ input: { path: 'src/ma' }, repaired: true });
  });

  it('reports unrepairable arguments with input undefined and an inputError', async () => {
    replyWith([
      vllmChunk({ tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'read_file', arguments: 'path is src/app.ts' } }] }),
      vllmChunk({}, 'tool_calls'),
    ]);
    const [call] = toolCallsOf(await collect(model().stream(request)));
    expect(call?.input).toBeUndefined();
    expect(call?.inputError).toMatch(/not JSON/);
    expect(call?.toolCall.arguments).toBe('path is src/app.ts');
  });
});

describe('reasoning', () => {
  it('turns llama.cpp reasoning_content deltas into reasoning, never text', async () => {
    replyWith([
      llamaCppChunk({ role: 'assistant', content: null }),
      llamaCppChunk({ reasoning_content: 'The user greets; ' }),
      llamaCppChunk({ reasoning_content: 'answer briefly.' }),
      llamaCppChunk({ content: 'Hi there' }),
      llamaCppChunk({}, 'stop'),
    ]);
    const parts = await collect(model().stream(request));
    expect(reasoningOf(parts)).toBe('The user greets; answer briefly.');
    expect(textOf(parts)).toBe('Hi there');
  });

  it('reads Ollama `reasoning` deltas too', async () => {
    replyWith([ollamaChunk({ content: '', reasoning: 'thinking hard' }), ollamaChunk({ content: 'Done.' }), ollamaChunk({ content: '' }, 'stop')]);
    const parts = await collect(model().stream(request));
    expect(reasoningOf(parts)).toBe('thinking hard');
    expect(textOf(parts)).toBe('Done.');
  });

  it('splits <think> inside content when the tags are cut across chunks', async () => {
    const pieces = ['<thi', 'nk>Check the ', 'file first.</th', 'ink>', '\n\nThe file ', 'is fine.'];
    replyWith([...pieces.map((content) => ollamaChunk({ content })), ollamaChunk({ content: '' }, 'stop')]);
    const parts = await collect(model().stream(request));
    expect(reasoningOf(parts)).toBe('Check the file first.');
    expect(textOf(parts)).toBe('The file is fine.');
  });

  it('treats everything after an unclosed <think> as reasoning', async () => {
    replyWith([ollamaChunk({ content: '<think>I will never' }), ollamaChunk({ content: ' finish this' }), ollamaChunk({ content: '' }, 'length')]);
    const parts = await collect(model().stream(request));
    expect(reasoningOf(parts)).toBe('I will never finish this');
    expect(textOf(parts)).toBe('');
  });

  it('holds the leading text of a reasoning model until a bare </think> shows it was reasoning', async () => {
    replyWith([
      vllmChunk({ content: 'Let me think' }),
      vllmChunk({ content: ' about it.</thi' }),
      vllmChunk({ content: 'nk>Answer: 4' }),
      vllmChunk({}, 'stop'),
    ]);
    const reasoner = createOpenAICompatibleModel({ providerId: 'test', baseURL: `${HOST}/v1`, modelId: 'deepseek-r1:14b' });
    const parts = await collect(reasoner.stream(request));
    expect(reasoningOf(parts)).toBe('Let me think about it.');
    expect(textOf(parts)).toBe('Answer: 4');
  });

  it('learns from a bare </think> that the server strips the opener, and separates the next answer', async () => {
    const stripped = [vllmChunk({ content: 'Plan: add.' }), vllmChunk({ content: '</think>' }), vllmChunk({ content: '4' }), vllmChunk({}, 'stop')];
    replyWith(stripped);
    replyWith(stripped);
    const plain = model();
    const first = await collect(plain.stream(request));
    expect(textOf(first)).not.toContain('</think>');
    const second = await collect(plain.stream(request));
    expect(reasoningOf(second)).toBe('Plan: add.');
    expect(textOf(second)).toBe('4');
  });

  it('streams the text of a plain model without holding it back', async () => {
    replyWith([ollamaChunk({ content: 'Hello' }), ollamaChunk({ content: ' world' }), ollamaChunk({ content: '' }, 'stop')]);
    const parts = await collect(model().stream(request));
    expect(parts.slice(0, 2)).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' world' },
    ]);
  });
});

describe('request body', () => {
  it('maps messages, tools, effort and sampling defaults to the OpenAI wire format', async () => {
    let sent: Record<string, unknown> = {};
    nock(HOST)
      .post('/v1/chat/completions', (body: Record<string, unknown>) => {
        sent = body;
        return true;
      })
      .reply(200, sseBody([vllmChunk({ content: 'ok' }, 'stop')]), SSE_HEADERS);
    const withDefaults = createOpenAICompatibleModel({
      providerId: 'test',
      baseURL: `${HOST}/v1`,
      modelId: 'm',
      samplingDefaults: { top_k: 20, temperature: 0.7 },
    });
    await collect(
      withDefaults.stream({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'read it' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }] },
          { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'A' },
        ],
        tools: [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object' } }],
        effort: 'none',
        temperature: 0.2,
      }),
    );
    expect(sent).toMatchObject({
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      top_k: 20,
      temperature: 0.2,
      reasoning_effort: 'none',
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Reads a file.', parameters: { type: 'object' } } }],
    });
    expect(sent.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'read it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
    ]);
  });

  it('omits reasoning_effort when no effort is given', async () => {
    let sent: Record<string, unknown> = {};
    nock(HOST)
      .post('/v1/chat/completions', (body: Record<string, unknown>) => {
        sent = body;
        return true;
      })
      .reply(200, sseBody([vllmChunk({ content: 'ok' }, 'stop')]), SSE_HEADERS);
    await collect(model().stream(request));
    expect(sent).not.toHaveProperty('reasoning_effort');
  });
});
