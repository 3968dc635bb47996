import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { resolveEffort, type EffortSources } from '../../../src/core/agent/effort.js';
import type { AgentEvent } from '../../../src/core/agent/agent-events.js';
import { ModelError } from '../../../src/core/errors.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { LanguageModel, ReasoningEffort } from '../../../src/core/model/language-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, geordi, turnInput } from './support/fixtures.js';

const textOf = (events: AgentEvent[]) => events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');

describe('streaming', () => {
  it('forwards reasoning as events but never into text or history', async () => {
    const model = createScriptedModel([
      [
        { type: 'reasoning-delta', text: 'The user probably means ' },
        { type: 'reasoning-delta', text: 'the api folder.' },
        { type: 'text-delta', text: 'The api tests ' },
        { type: 'text-delta', text: 'need Redis.' },
        { type: 'finish', reason: 'stop' },
      ],
    ]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(input);

    const reasoning = input.events.flatMap((event) => (event.type === 'reasoning-delta' ? [event.text] : []));
    expect(reasoning).toEqual(['The user probably means ', 'the api folder.']);
    expect(result.text).toBe('The api tests need Redis.');
    expect(JSON.stringify(result.history)).not.toContain('probably means');
    expect(input.events.at(-1)).toEqual({ type: 'finish', reason: 'stop', text: 'The api tests need Redis.' });
  });

  it('streams text of every round, and the text equals what was streamed', async () => {
    const tools = createFakeToolRegistry([fakeTool('read_file')]);
    const model = createScriptedModel([[{ type: 'text-delta', text: 'Checking.' }, ...callTool('read_file', {}, 'c1')], say('Found it.')]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);
    expect(result.text).toBe('Checking.\n\nFound it.');
    expect(textOf(input.events)).toBe(result.text);
    expect(result.usage).toMatchObject({ modelCalls: 2, toolCalls: 1, promptTokens: 200, peakContextTokens: 100 });
  });

  it('ends a failed model call with reason error, the user message in history and no broken assistant message', async () => {
    const failure = new ModelError('The model server is not reachable at 127.0.0.1:11434.');
    const model = createScriptedModel([
      () => {
        throw failure;
      },
    ]);
    const input = turnInput({
      history: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'reply' },
      ],
    });
    const result = await createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(input);
    expect(result.finishReason).toBe('error');
    expect(result.error).toBe(failure);
    expect(result.history.at(-1)).toEqual({ role: 'user', content: 'Why does npm test fail?' });
    expect(result.history).toHaveLength(3);
    expect(input.events.at(-1)).toMatchObject({ type: 'finish', reason: 'error', error: failure });
  });

  it('keeps the text streamed before a mid-stream failure but not in history', async () => {
    const failing: LanguageModel = {
      providerId: 'scripted',
      modelId: 'flaky',
      async *stream() {
        yield { type: 'text-delta', text: 'Partial ' };
        throw new ModelError('The model server closed the stream.');
      },
    };
    const result = await createAgentRunner({ model: failing, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(turnInput());
    expect(result.finishReason).toBe('error');
    expect(result.text).toBe('Partial ');
    expect(result.history.map((message) => message.role)).toEqual(['user']);
  });
});

describe('reasoning effort', () => {
  const table: [EffortSources, ReasoningEffort | undefined][] = [
    [{ pin: 'none', caller: 'low', character: 'medium', role: 'xhigh', configDefault: 'low' }, 'none'],
    [{ caller: 'low', character: 'medium', role: 'xhigh', configDefault: 'none' }, 'low'],
    [{ character: 'medium', role: 'xhigh', configDefault: 'none' }, 'medium'],
    [{ role: 'xhigh', configDefault: 'none' }, 'xhigh'],
    [{ configDefault: 'low' }, 'low'],
    [{}, undefined],
  ];
  it.each(table)('resolves %j to %s', (sources, expected) => {
    expect(resolveEffort(sources)).toBe(expected);
  });

  it('passes the resolved effort to the model request', async () => {
    const model = createScriptedModel([say('a'), say('b'), say('c')]);
    const runner = createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate(), settings: { defaultEffort: 'none' } });
    await runner.runTurn(turnInput()); // the developer role says medium
    await runner.runTurn(turnInput({ effort: { caller: 'low' } }));
    await runner.runTurn(turnInput({ character: { ...geordi, reasoningEffort: 'xhigh' }, effort: { pin: 'none' } }));
    expect(model.requests.map((request) => request.effort)).toEqual(['medium', 'low', 'none']);
  });
});
