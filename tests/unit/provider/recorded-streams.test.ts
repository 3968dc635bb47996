/**
 * Streams recorded from real servers (tests/fixtures/model-streams/, sources in its README.md),
 * replayed byte for byte through the provider: plain text, each reasoning field, tool calls in
 * pieces and in parallel, markup streamed before a parsed call, keep-alive comments, an error chunk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/core/errors.js';
import type { ModelRequest, ModelStreamPart } from '../../../src/core/model/language-model.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { reasoningOf, textOf, toolCallsOf } from './sse-fixtures.js';

const CORPUS = path.resolve(import.meta.dirname, '../../fixtures/model-streams');
const HOST = 'http://recorded.test:8080';
const tools: ModelRequest['tools'] = [
  { name: 'run_command', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' }, cwd: { type: 'string' } } } },
  { name: 'get_current_weather', description: 'Weather.', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
];
const MARKUP = /<tool_call>|<\/tool_call>|<function=|<parameter=|\[TOOL_CALLS\]/;

interface Expected {
  text?: string;
  textStart?: string;
  reasoning?: string;
  reasoningStart?: string;
  calls?: { id?: string; name: string; input: unknown }[];
  usage?: { promptTokens: number; completionTokens: number };
  finish?: string;
  error?: RegExp;
}

const EXPECTED: Record<string, Expected> = {
  'deepseek/reasoning-content.sse': {
    text: 'Hello there! 😊 How can I help you today?',
    reasoningStart: 'Hmm, the user just said "Hello".',
    usage: { promptTokens: 6, completionTokens: 212 },
    finish: 'stop',
  },
  'llama-cpp/qwen3-coder-markup-before-parsed-call.sse': {
    text: 'Hi there! Let me check the current weather for Washington DC for you.\n',
    calls: [{ name: 'get_current_weather', input: { location: 'Washington DC' } }],
    finish: 'tool-calls',
  },
  // The capture's author elided the ids as "..." (the call id as "v2dh..."); the id of the first piece is kept.
  'llama-cpp/qwen3-coder-tool-call.sse': { text: '', calls: [{ id: 'v2dh...', name: 'run_command', input: { command: 'pwd' } }], finish: 'tool-calls' },
  'ollama/text.sse': { text: 'My name is Neo Vim.', finish: 'stop' },
  'ollama/parallel-tool-calls.sse': {
    text: '',
    calls: [
      { id: 'call_809l7n8f', name: 'run_command', input: { command: 'ls -la' } },
      { id: 'call_oqp1e2a1', name: 'run_command', input: { command: 'ls -la', cwd: '/path/to/directory' } },
    ],
    finish: 'tool-calls',
  },
  'ollama/tool-call-whole.sse': { text: '', calls: [{ id: 'call_lbcjwr0u', name: 'run_command', input: { command: 'ls -a' } }], finish: 'tool-calls' },
  'ollama/parallel-tool-calls-same-command.sse': {
    text: '',
    calls: [
      { id: 'call_wteop8bt', name: 'run_command', input: { command: 'ls' } },
      { id: 'call_rk2xye1l', name: 'run_command', input: { command: 'ls -l' } },
    ],
    finish: 'tool-calls',
  },
  // Twenty-three keep-alive comments before the first data line; `finish_reason: "stop"` twice, the second with usage.
  'openrouter/keep-alive-comments-text.sse': {
    text: 'I recommend naming your Python retry library **Retryable** to clearly convey its purpose while being catchy and distinct.',
    reasoning: '',
    usage: { promptTokens: 571, completionTokens: 59 },
    finish: 'stop',
  },
  'openrouter/reasoning-details.sse': {
    text: '2 + 2 = 4',
    reasoning: 'This is a simple arithmetic question. 2+2 equals 4.',
    usage: { promptTokens: 43, completionTokens: 36 },
    finish: 'stop',
  },
  // Only an encrypted `reasoning_details` entry (`reasoning: null`): no readable reasoning, none leaks into the text.
  'openrouter/reasoning-then-text.sse': {
    textStart: 'I’m ChatGPT, a large-language-model assistant created by OpenAI.',
    reasoning: '',
    usage: { promptTokens: 9, completionTokens: 104 },
    finish: 'stop',
  },
  'openrouter/native-options-text.sse': {
    textStart: "I'm Grok, an AI built by xAI.",
    reasoning: '',
    usage: { promptTokens: 687, completionTokens: 254 },
    finish: 'stop',
  },
  'openrouter/token-limit-error-after-length.sse': {
    reasoning: 'We need to respond to a greeting. The user',
    error: /cut off at its token limit \("Token limit reached"\)/,
  },
  'vllm/tool-call-in-pieces.sse': {
    text: '',
    calls: [{ id: 'chatcmpl-tool-ca99dda515524c6abe47d1ea22813507', name: 'run_command', input: { command: 'ls' } }],
    finish: 'tool-calls',
  },
};

/** Every committed recording, as `server/file`. */
function recordings(): string[] {
  const found: string[] = [];
  for (const server of readdirSync(CORPUS, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of readdirSync(path.join(CORPUS, server.name)).filter((name) => name.endsWith('.sse'))) found.push(`${server.name}/${file}`);
  }
  return found.sort();
}

const FOUND = recordings();

/** An independent reading of the recording: the content and reasoning its data lines carry. */
function oracle(body: string): { content: string; reasoning: string } {
  let content = '';
  let reasoning = '';
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (data === '' || data === '[DONE]') continue;
    const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
    if (typeof delta.content === 'string') content += delta.content;
    const thought = delta.reasoning_content || delta.reasoning;
    if (typeof thought === 'string') reasoning += thought;
  }
  return { content, reasoning };
}

async function replay(body: Buffer): Promise<{ parts: ModelStreamPart[]; error?: unknown }> {
  nock(HOST).post('/v1/chat/completions').reply(200, body, { 'Content-Type': 'text/event-stream' });
  const model = createOpenAICompatibleModel({ providerId: 'recorded', baseURL: `${HOST}/v1`, modelId: 'recorded-model', maxRetries: 0 });
  const parts: ModelStreamPart[] = [];
  try {
    for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], tools })) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
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

describe('recorded streams of real servers', () => {
  it('has at least twelve recordings from at least four servers, each one expected here and named in the README', () => {
    const readme = readFileSync(path.join(CORPUS, 'README.md'), 'utf8');
    expect(FOUND.length).toBeGreaterThanOrEqual(12);
    expect(new Set(FOUND.map((file) => file.split('/')[0])).size).toBeGreaterThanOrEqual(4);
    expect(FOUND).toEqual(Object.keys(EXPECTED).sort());
    for (const file of FOUND) expect(readme, file).toContain(`\`${file}\``);
  });

  it.each(Object.entries(EXPECTED))('replays %s', async (file, expected) => {
    const body = readFileSync(path.join(CORPUS, file));
    const { parts, error } = await replay(body);
    const text = textOf(parts);
    if (expected.error) {
      expect(error).toBeInstanceOf(ModelError);
      expect((error as Error).message).toMatch(expected.error);
      expect((error as Error).message).not.toMatch(/\n/);
    } else {
      expect(error).toBeUndefined();
    }
    expect(text).not.toMatch(MARKUP);
    if (expected.text !== undefined) expect(text).toBe(expected.text);
    if (expected.textStart !== undefined) expect(text.startsWith(expected.textStart)).toBe(true);
    if (expected.reasoning !== undefined) expect(reasoningOf(parts)).toBe(expected.reasoning);
    if (expected.reasoningStart !== undefined) expect(reasoningOf(parts).startsWith(expected.reasoningStart)).toBe(true);
    const calls = toolCallsOf(parts);
    expect(
      calls.map((call) => ({ ...(expected.calls?.some((entry) => entry.id) ? { id: call.toolCall.id } : {}), name: call.toolCall.name, input: call.input })),
    ).toEqual((expected.calls ?? []).map((call) => (call.id ? call : { name: call.name, input: call.input })));
    if (expected.usage) expect(parts.filter((part) => part.type === 'usage').map((part) => part.type === 'usage' && part.usage)).toEqual([expected.usage]);
    if (expected.finish) expect(parts.at(-1)).toEqual({ type: 'finish', reason: expected.finish });
    // Without tool-call markup, reply text and reasoning are exactly what the data lines carry.
    const carried = oracle(body.toString('utf8'));
    if (!MARKUP.test(carried.content)) expect(text).toBe(carried.content);
    expect(reasoningOf(parts).startsWith(carried.reasoning) || carried.reasoning === '').toBe(true);
  });
});
