/**
 * One `openai` client per model server: every request of a model, and every model on the server
 * (a `/tsuka model` switch makes a new one), go through the same client and its connections. The
 * attack: before, each model built its own client (and `connectModelServer`'s switch a new one each
 * time), so a server had as many clients as models were ever made for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIClientPool, sharedOpenAIClients } from '../../../src/core/provider/openai-client-pool.js';
import { createOpenAICompatibleModel } from '../../../src/core/provider/openai-compatible-model.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';

let first: ScriptedModelServer;
let second: ScriptedModelServer;

beforeAll(async () => {
  [first, second] = await Promise.all([startScriptedModelServer(), startScriptedModelServer()]);
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

async function ask(model: ReturnType<typeof createOpenAICompatibleModel>, server: ScriptedModelServer, text: string): Promise<string> {
  server.enqueue({ text });
  let answer = '';
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }] })) if (part.type === 'text-delta') answer += part.text;
  return answer;
}

describe('openai client pool', () => {
  it('gives every model on one server the same client, across requests and model switches', async () => {
    const clients = createOpenAIClientPool();
    const coder = createOpenAICompatibleModel({ providerId: 'scripted', baseURL: first.baseURL, modelId: 'coder-7b', clients });
    const switched = createOpenAICompatibleModel({ providerId: 'scripted', baseURL: first.baseURL, modelId: 'reasoner-14b', clients });
    expect(await ask(coder, first, 'one')).toBe('one');
    expect(await ask(coder, first, 'two')).toBe('two');
    expect(await ask(switched, first, 'three')).toBe('three');
    expect(clients.size).toBe(1);
    expect(clients.clientFor({ baseURL: first.baseURL })).toBe(clients.clientFor({ baseURL: first.baseURL }));

    const other = createOpenAICompatibleModel({ providerId: 'scripted', baseURL: second.baseURL, modelId: 'coder-7b', clients });
    expect(await ask(other, second, 'four')).toBe('four');
    // Another server, or another key for the same server, is another client.
    expect(clients.size).toBe(2);
    expect(clients.clientFor({ baseURL: first.baseURL, apiKey: 'sk-other' })).not.toBe(clients.clientFor({ baseURL: first.baseURL }));
  });

  it('shares one client per server by default, whoever creates the models', async () => {
    const before = sharedOpenAIClients.size;
    for (const modelId of ['a-7b', 'b-7b', 'c-7b']) {
      const model = createOpenAICompatibleModel({ providerId: 'scripted', baseURL: `${second.baseURL}/`, modelId });
      expect(await ask(model, second, modelId)).toBe(modelId);
    }
    expect(sharedOpenAIClients.size - before).toBe(1);
  });
});
