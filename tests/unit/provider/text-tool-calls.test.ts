/**
 * Tool calls a model writes as text, on a request that offered tools: each form is run as a call,
 * and no markup reaches the text, whatever way the server cut the stream.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { collect, llamaCppChunk, ollamaChunk, SSE_HEADERS, sseBody, textOf, toolCallsOf, usageChunk } from './sse-fixtures.js';

const HOST = 'http://models.test:8080';
const tools: ModelRequest['tools'] = [
  {
    name: 'list_dir',
    description: 'List a folder.',
    parameters: { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } } },
  },
  { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
];
const withTools: ModelRequest = { messages: [{ role: 'user', content: 'look around' }], tools };
const withoutTools: ModelRequest = { messages: [{ role: 'user', content: 'look around' }] };

function model() {
  return createOpenAICompatibleModel({ providerId: 'test', baseURL: `${HOST}/v1`, modelId: 'qwen2.5-coder:7b', retryBaseDelayMs: 1 });
}

/** Streams `content` cut into pieces of `size` characters (every cut a server might make). */
function contentIn(pieces: string[], finish = 'stop'): object[] {
  return [...pieces.map((piece) => ollamaChunk({ content: piece })), ollamaChunk({ content: '' }, finish), usageChunk(10, 5)];
}

function cut(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let index = 0; index < text.length; index += size) pieces.push(text.slice(index, index + size));
  return pieces;
}

async function replay(chunks: object[], request: ModelRequest = withTools) {
  nock(HOST).post('/v1/chat/completions').reply(200, sseBody(chunks), SSE_HEADERS);
  return collect(model().stream(request));
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

const MARKUP = /<tool_call>|<\/tool_call>|<function=|<\/function>|<parameter=|\[TOOL_CALLS\]|"arguments"/;

describe('tool calls written as text', () => {
  const hermes = 'Let me look.\n<tool_call>\n{"name": "list_dir", "arguments": {"path": "."}}\n</tool_call>';
  const qwenCoder = '<tool_call>\n<function=list_dir>\n<parameter=path>\nsrc\n</parameter>\n<parameter=depth>\n2\n</parameter>\n</function>\n</tool_call>';
  const bareFunction = 'I will list it.\n<function=list_dir>\n<parameter=path>\n.\n</parameter>\n</function>';
  const mistralArray = '[TOOL_CALLS][{"name": "list_dir", "arguments": {"path": "."}}, {"name": "read_file", "arguments": {"path": "a.ts"}}]';
  const mistralNamed = '[TOOL_CALLS]list_dir[ARGS]{"path": "."}';
  const mistralNamedOld = '[TOOL_CALLS]read_file{"path": "a.ts"}';
  const bareJson = '{"name": "list_dir", "arguments": {"path": "."}}';
  const fencedJson = '```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```';

  it.each([
    ['Hermes/Qwen <tool_call> JSON', hermes, [{ name: 'list_dir', input: { path: '.' } }], 'Let me look.\n', 'hermes'],
    ['Qwen3-Coder in <tool_call>', qwenCoder, [{ name: 'list_dir', input: { path: 'src', depth: 2 } }], '', 'qwen3-coder'],
    ['Qwen3-Coder without the wrapper', bareFunction, [{ name: 'list_dir', input: { path: '.' } }], 'I will list it.\n', 'qwen3-coder'],
    [
      'Mistral [TOOL_CALLS] array',
      mistralArray,
      [
        { name: 'list_dir', input: { path: '.' } },
        { name: 'read_file', input: { path: 'a.ts' } },
      ],
      '',
      'mistral',
    ],
    ['Mistral [TOOL_CALLS]name[ARGS]{json}', mistralNamed, [{ name: 'list_dir', input: { path: '.' } }], '', 'mistral'],
    ['Mistral [TOOL_CALLS]name{json}', mistralNamedOld, [{ name: 'read_file', input: { path: 'a.ts' } }], '', 'mistral'],
    ['a bare JSON object that is the whole answer', bareJson, [{ name: 'list_dir', input: { path: '.' } }], '', 'bare-json'],
    ['a fenced bare JSON object', fencedJson, [{ name: 'read_file', input: { path: 'a.ts' } }], '', 'bare-json'],
  ])('runs %s and shows no markup, however the stream is cut', async (_name, content, expected, visible, form) => {
    for (const size of [1, 3, 7, content.length]) {
      const parts = await replay(contentIn(cut(content, size)));
      const calls = toolCallsOf(parts);
      expect(
        calls.map((call) => ({ name: call.toolCall.name, input: call.input })),
        `cut every ${size}`,
      ).toEqual(expected);
      expect(calls.every((call) => call.textForm === form && call.inputError === undefined)).toBe(true);
      expect(textOf(parts), `cut every ${size}`).toBe(visible);
      expect(textOf(parts)).not.toMatch(MARKUP);
      expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
    }
  });

  it('drops the Qwen3-Coder markup llama.cpp streamed before it parsed the call itself', async () => {
    const parts = await replay([
      llamaCppChunk({ role: 'assistant', content: null }),
      llamaCppChunk({ content: '<tool' }),
      llamaCppChunk({ content: '_call>\n' }),
      llamaCppChunk({ content: '<function=list' }),
      llamaCppChunk({ content: '_dir' }),
      llamaCppChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } }] }),
      llamaCppChunk({}, 'tool_calls'),
    ]);
    expect(textOf(parts)).toBe('');
    expect(toolCallsOf(parts).map((call) => [call.toolCall.id, call.toolCall.name, call.input])).toEqual([['call_1', 'list_dir', { path: '.' }]]);
  });

  it('runs a call once when the server sends it natively and the text repeats it', async () => {
    const parts = await replay([
      ollamaChunk({ content: '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>' }),
      ollamaChunk({ tool_calls: [{ id: 'call_9', index: 0, function: { name: 'list_dir', arguments: { path: '.' } } }] }),
      ollamaChunk({ content: '' }, 'stop'),
    ]);
    expect(toolCallsOf(parts).map((call) => call.toolCall.id)).toEqual(['call_9']);
    expect(textOf(parts)).toBe('');
  });

  it('keeps a text call that differs from the native one', async () => {
    const parts = await replay([
      ollamaChunk({ content: '<tool_call>{"name": "read_file", "arguments": {"path": "b.ts"}}</tool_call>' }),
      ollamaChunk({ tool_calls: [{ id: 'call_9', index: 0, function: { name: 'list_dir', arguments: '{}' } }] }),
      ollamaChunk({ content: '' }, 'stop'),
    ]);
    expect(toolCallsOf(parts).map((call) => call.toolCall.name)).toEqual(['list_dir', 'read_file']);
  });

  it('runs an unclosed last block (the model stopped on its end token)', async () => {
    const parts = await replay(contentIn(['<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n']));
    expect(toolCallsOf(parts).map((call) => call.input)).toEqual([{ path: 'a.ts' }]);
    expect(textOf(parts)).toBe('');
  });

  it('reports a block it cannot read as a call with an input error, not as text', async () => {
    const parts = await replay(contentIn(['<tool_call>not json at all</tool_call>']));
    const [call] = toolCallsOf(parts);
    expect(call?.inputError).toBeDefined();
    expect(textOf(parts)).toBe('');
  });

  it('leaves JSON that names no offered tool, prose about tags, and requests without tools alone', async () => {
    const json = '{"name": "Ada", "arguments": {"age": 36}}';
    expect(textOf(await replay(contentIn(cut(json, 4))))).toBe(json);
    expect(toolCallsOf(await replay(contentIn([json])))).toHaveLength(0);
    const prose = 'Use a <b>tag</b> or x < y, then { braces }.';
    expect(textOf(await replay(contentIn(cut(prose, 2))))).toBe(prose);
    const hermes = '<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>';
    const plain = await replay(contentIn([hermes]), withoutTools);
    expect(textOf(plain)).toBe(hermes);
    expect(toolCallsOf(plain)).toHaveLength(0);
  });

  it('streams the text before a call at once and keeps text after it', async () => {
    const parts = await replay(contentIn(['Reading', ' now <tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call> done.']));
    expect(textOf(parts)).toBe('Reading now  done.');
    expect(parts[0]).toEqual({ type: 'text-delta', text: 'Reading' });
  });
});
