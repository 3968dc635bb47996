/**
 * A server that says the prompt does not fit its context window: the turn is retried once with a
 * pruned history, and gives up with the server's cause when that does not fit either.
 */
import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import type { ChatMessage } from '../../../src/core/model/language-model.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { ContextTooLongError } from '../../../src/core/provider/server-errors.js';
import { createFakeToolRegistry } from './support/fake-tool-registry.js';
import { createFakeGate, turnInput } from './support/fixtures.js';

const tooLong = () => {
  throw new ContextTooLongError('The conversation is too long for the model "m" (9000 tokens for a context of 8192): start a new thread.', {
    promptTokens: 9000,
    contextWindow: 8192,
  });
};

function longHistory(): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (let index = 0; index < 20; index++) {
    history.push({ role: 'user', content: `question ${index} ${'x'.repeat(400)}` }, { role: 'assistant', content: `answer ${index} ${'y'.repeat(400)}` });
  }
  return history;
}

describe('context too long', () => {
  it('retries the turn once with a pruned history, and answers', async () => {
    const model = createScriptedModel([tooLong, say('Done.')]);
    const input = turnInput({ history: longHistory() });
    const result = await createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(input);
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Done.');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.length).toBeLessThan(model.requests[0]!.messages.length);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('Why does npm test fail?') });
    expect(input.events).toContainEqual(expect.objectContaining({ type: 'history-pruned' }));
    // The whole history is kept for the next turn: pruning only shapes what is sent.
    expect(result.history.length).toBe(42);
  });

  it('gives up after the one retry with the server-named cause', async () => {
    const model = createScriptedModel([tooLong, tooLong]);
    const result = await createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(
      turnInput({ history: longHistory() }),
    );
    expect(result.finishReason).toBe('error');
    expect(result.error?.message).toMatch(/too long.*start a new thread/);
    expect(model.requests).toHaveLength(2);
  });
});
