/**
 * The request body is written without serialising the whole history on every round: each message
 * once, each tool once. The attack: a 20-round turn whose history grows by a tool call and a 2 KB
 * result per round. Before, every round serialised the whole body again (about ten times the last
 * body in all); now the turn serialises little more than its last body.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage, ModelRequest, ToolDefinition } from '../../../src/core/model/language-model.js';
import { createChatBodyWriter } from '../../../src/core/provider/chat-body-writer.js';
import { buildChatBody } from '../../../src/core/provider/chat-request.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { startScriptedModelServer } from '../../support/scripted-model-server.js';

const tools: ToolDefinition[] = Array.from({ length: 8 }, (_, index) => ({
  name: `tool_${index}`,
  description: `Tool number ${index}. `.repeat(10),
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path in the workspace. '.repeat(8) } }, required: ['path'] },
}));

const HISTORY: ChatMessage[] = [
  { role: 'system', content: 'You are Geordi. "Quotes", \\ backslashes, \u2028 and emoji 🚀 survive.' },
  { role: 'user', content: 'look at this', name: 'ana', images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }] },
  { role: 'assistant', content: '', name: 'geordi', toolCalls: [{ id: 'call_1', name: 'tool_1', arguments: '{"path":"a.txt"}' }] },
  { role: 'tool', toolCallId: 'call_1', name: 'tool_1', content: 'line\n'.repeat(5) },
  { role: 'assistant', content: 'Done.', name: 'geordi' },
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('chat body writer', () => {
  it('writes the JSON of the body object, sampling defaults, dropped and reserved fields included', () => {
    const writer = createChatBodyWriter();
    const request: ModelRequest = { messages: HISTORY, tools, temperature: 0.2, maxOutputTokens: 300, effort: 'low' };
    const input = {
      modelId: 'qwen2.5-coder:7b',
      request,
      samplingDefaults: { top_k: 20, min_p: 0.05, model: 'not this one', stream: false, messages: [] },
      dropped: new Set(['min_p']),
    };
    for (let round = 0; round < 2; round += 1) {
      const written = writer.write(input);
      expect(JSON.parse(written.json)).toEqual(JSON.parse(JSON.stringify(buildChatBody(input))));
      expect(written.parameters).toEqual({ top_k: 20, temperature: 0.2, max_tokens: 300, reasoning_effort: 'low', model: 'qwen2.5-coder:7b' });
    }
    const bare = writer.write({ modelId: 'm', request: { messages: [] }, samplingDefaults: {}, dropped: new Set() });
    expect(JSON.parse(bare.json)).toEqual({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } });
  });

  it('writes a changed system prompt and a changed tool again', () => {
    const writer = createChatBodyWriter();
    const write = (system: string, description: string) =>
      JSON.parse(
        writer.write({
          modelId: 'm',
          request: { messages: [{ role: 'system', content: system }], tools: [{ ...tools[0]!, description }] },
          samplingDefaults: {},
          dropped: new Set(),
        }).json,
      );
    expect(write('first', 'one').messages[0].content).toBe('first');
    const second = write('second', 'two');
    expect(second.messages[0].content).toBe('second');
    expect(second.tools[0].function.description).toBe('two');
  });

  it('a 20-round turn serialises each message once, not the whole history every round', async () => {
    const server = await startScriptedModelServer();
    try {
      const model = createOpenAICompatibleModel({ providerId: 'scripted', baseURL: server.baseURL, modelId: 'scripted-model-7b', maxRetries: 0 });
      const history: ChatMessage[] = [
        { role: 'system', content: 'You are Geordi.' },
        { role: 'user', content: 'read the twenty files' },
      ];
      let serialisedChars = 0;
      const stringify = JSON.stringify;
      vi.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
        const text = stringify(...args);
        serialisedChars += text?.length ?? 0;
        return text;
      });
      for (let round = 0; round < 20; round += 1) {
        server.enqueue({ toolCalls: [{ name: 'tool_1', arguments: { path: `file-${round}.txt` } }] });
        // A new system message each round, with the same text, as the agent loop builds it.
        for await (const part of model.stream({ messages: [{ role: 'system', content: 'You are Geordi.' }, ...history.slice(1)], tools })) void part;
        history.push({ role: 'assistant', content: '', toolCalls: [{ id: `call_${round}`, name: 'tool_1', arguments: `{"path":"file-${round}.txt"}` }] });
        history.push({ role: 'tool', toolCallId: `call_${round}`, name: 'tool_1', content: `contents of file ${round}\n`.repeat(80) });
      }
      vi.restoreAllMocks();
      const lastBody = stringify(server.requests.at(-1)!.body).length;
      // The server's own chunks are serialised in this process too (about a thousand characters a round).
      expect(serialisedChars).toBeLessThan(2 * lastBody);
      expect(server.requests).toHaveLength(20);
      expect((server.requests[19]!.body as { messages: unknown[] }).messages).toHaveLength(2 + 19 * 2);
    } finally {
      await server.close();
    }
  });
});
