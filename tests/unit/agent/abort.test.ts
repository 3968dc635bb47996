import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { callTool, createScriptedModel } from '../../../src/core/model/scripted-model.js';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { assertValidHistory, createFakeGate, turnInput } from './support/fixtures.js';

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('abort', () => {
  it('during the model stream: ends with aborted, the text so far, and a valid history', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      [
        { type: 'text-delta', text: 'Let me ' },
        { type: 'text-delta', text: 'look' },
        { type: 'tool-call', toolCall: { id: 'c1', name: 'read_file', arguments: '{}' }, input: {} },
        { type: 'finish', reason: 'tool-calls' },
      ],
    ]);
    const tools = createFakeToolRegistry([fakeTool('read_file')]);
    const input = turnInput({
      signal: controller.signal,
      onEvent: (event) => {
        input.events.push(event);
        if (event.type === 'text-delta' && event.text === 'Let me ') controller.abort();
      },
    });
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);

    expect(result.finishReason).toBe('aborted');
    expect(result.text).toBe('Let me ');
    expect(tools.executed).toEqual([]);
    expect(result.history).toEqual([
      { role: 'user', content: 'Why does npm test fail?' },
      { role: 'assistant', content: 'Let me ', name: 'geordi' },
    ]);
    assertValidHistory(result.history);
    expect(input.events.at(-1)).toMatchObject({ type: 'finish', reason: 'aborted' });
  });

  it('during a model call that hangs before its first part', async () => {
    const controller = new AbortController();
    const model = createScriptedModel([
      async (): Promise<ModelStreamPart[]> => {
        controller.abort();
        await new Promise(() => {}); // a server that never answers
        return [];
      },
    ]);
    const result = await createAgentRunner({ model, tools: createFakeToolRegistry([]), permissions: createFakeGate() }).runTurn(
      turnInput({ signal: controller.signal }),
    );
    expect(result.finishReason).toBe('aborted');
    expect(result.history).toEqual([{ role: 'user', content: 'Why does npm test fail?' }]);
  });

  it('while waiting for permission: the call gets a synthetic result and nothing runs', async () => {
    const controller = new AbortController();
    const tools = createFakeToolRegistry([fakeTool('write_file', { riskLevel: 'RESTRICTED' })]);
    const gate = createFakeGate(async (_request, signal) => {
      queueMicrotask(() => controller.abort());
      await aborted(signal);
      return { outcome: 'denied' };
    });
    const model = createScriptedModel([callTool('write_file', {}, 'w1')]);
    const input = turnInput({ signal: controller.signal });
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(input);

    expect(result.finishReason).toBe('aborted');
    expect(gate.requests).toHaveLength(1);
    expect(tools.executed).toEqual([]);
    expect(result.history.at(-1)).toEqual({ role: 'tool', toolCallId: 'w1', name: 'write_file', content: 'Aborted by the user.' });
    assertValidHistory(result.history);
  });

  it('while a permission gate ignores the signal, the turn still ends', async () => {
    const controller = new AbortController();
    const tools = createFakeToolRegistry([fakeTool('write_file', { riskLevel: 'DANGEROUS' })]);
    const gate = createFakeGate(() => {
      queueMicrotask(() => controller.abort());
      return new Promise(() => {});
    });
    const model = createScriptedModel([callTool('write_file', {}, 'w1')]);
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(turnInput({ signal: controller.signal }));
    expect(result.finishReason).toBe('aborted');
    assertValidHistory(result.history);
  });

  it('inside a running tool: the tool gets the signal, later calls never start, every call has a result', async () => {
    const controller = new AbortController();
    let toolSawAbort = false;
    const tools = createFakeToolRegistry([
      fakeTool('run_tests', {
        execute: async (_input, context) => {
          queueMicrotask(() => controller.abort());
          await aborted(context.signal);
          toolSawAbort = true;
          return { output: 'killed', isError: true };
        },
      }),
      fakeTool('read_file'),
    ]);
    const model = createScriptedModel([
      [
        { type: 'text-delta', text: 'Running the tests.' },
        { type: 'tool-call', toolCall: { id: 't1', name: 'run_tests', arguments: '{}' }, input: {} },
        { type: 'tool-call', toolCall: { id: 't2', name: 'read_file', arguments: '{}' }, input: {} },
        { type: 'finish', reason: 'tool-calls' },
      ],
    ]);
    const input = turnInput({ signal: controller.signal });
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);

    expect(result.finishReason).toBe('aborted');
    expect(toolSawAbort).toBe(true);
    expect(result.text).toBe('Running the tests.');
    expect(tools.executed.map((call) => call.name)).toEqual(['run_tests']);
    const results = result.history.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.content]);
    expect(results).toEqual([
      ['t1', 'Aborted by the user.'],
      ['t2', 'Aborted by the user.'],
    ]);
    assertValidHistory(result.history);
    const finishedEvent = input.events.find((event) => event.type === 'tool-call-finished');
    expect(finishedEvent).toMatchObject({ outcome: 'aborted' });
  });
});
