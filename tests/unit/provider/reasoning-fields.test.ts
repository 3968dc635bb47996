/** Every reasoning field a server uses is reasoning, never answer text, and none is counted twice. */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { collect, reasoningOf, SSE_HEADERS, sseBody, textOf } from './sse-fixtures.js';

const HOST = 'http://models.test:8080';

/** OpenRouter's chunk shape: `provider`, `native_finish_reason`, `reasoning` beside `reasoning_details`. */
function openRouterChunk(delta: Record<string, unknown>, finishReason: string | null = null): object {
  return {
    id: 'gen-1',
    provider: 'Chutes',
    model: 'deepseek/deepseek-r1',
    object: 'chat.completion.chunk',
    created: 1735000000,
    choices: [
      { index: 0, delta: { role: 'assistant', content: '', ...delta }, finish_reason: finishReason, native_finish_reason: finishReason, logprobs: null },
    ],
  };
}

async function replay(chunks: object[]) {
  nock(HOST).post('/v1/chat/completions').reply(200, sseBody(chunks), SSE_HEADERS);
  const model = createOpenAICompatibleModel({ providerId: 'test', baseURL: `${HOST}/v1`, modelId: 'deepseek/deepseek-r1' });
  return collect(model.stream({ messages: [{ role: 'user', content: 'hi' }] }));
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

describe('reasoning fields', () => {
  it('reads OpenRouter reasoning once when it comes both as `reasoning` and in `reasoning_details`', async () => {
    const parts = await replay([
      openRouterChunk({ reasoning: 'First, ', reasoning_details: [{ type: 'reasoning.text', text: 'First, ', format: 'unknown', index: 0 }] }),
      openRouterChunk({ reasoning: 'think.', reasoning_details: [{ type: 'reasoning.text', text: 'think.', format: 'unknown', index: 0 }] }),
      openRouterChunk({ content: 'Answer.' }, 'stop'),
    ]);
    expect(reasoningOf(parts)).toBe('First, think.');
    expect(textOf(parts)).toBe('Answer.');
  });

  it('reads `reasoning_details` alone: text and summaries, never the encrypted kind', async () => {
    const parts = await replay([
      openRouterChunk({ reasoning: null, reasoning_details: [{ type: 'reasoning.summary', summary: 'Plan: add. ' }] }),
      openRouterChunk({ reasoning_details: [{ type: 'reasoning.text', text: '2+2=4' }] }),
      openRouterChunk({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'gAAAAB' }] }),
      openRouterChunk({ content: '4' }, 'stop'),
    ]);
    expect(reasoningOf(parts)).toBe('Plan: add. 2+2=4');
    expect(textOf(parts)).toBe('4');
  });

  it('keeps reasoning_content, reasoning and <think> apart from the answer', async () => {
    const parts = await replay([
      openRouterChunk({ reasoning_content: 'a' }),
      openRouterChunk({ reasoning: 'b' }),
      openRouterChunk({ content: '<think>c</think>Reply' }, 'stop'),
    ]);
    expect(reasoningOf(parts)).toBe('abc');
    expect(textOf(parts)).toBe('Reply');
  });
});
