import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { createToolCallTextFilter, parseTextToolCalls } from '../../../src/core/agent/text-tool-calls.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { assertValidHistory, createFakeGate, turnInput } from './support/fixtures.js';

describe('parseTextToolCalls', () => {
  it('finds tagged calls, tolerates code fences, and removes them from the visible text', () => {
    const text = [
      'I will read it.',
      '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>',
      '```json',
      '<tool_call>',
      '```json',
      '{"name": "list_dir", "arguments": {}}',
      '```',
      '</tool_call>',
      '```',
      'Then compare.',
    ].join('\n');
    const parsed = parseTextToolCalls(text, 'id_');
    expect(parsed.calls).toEqual([
      { toolCall: { id: 'id_1', name: 'read_file', arguments: '{"path":"a.ts"}' }, input: { path: 'a.ts' } },
      { toolCall: { id: 'id_2', name: 'list_dir', arguments: '{}' }, input: {} },
    ]);
    expect(parsed.visibleText).toBe('I will read it.\n\nThen compare.');
  });

  it('reports a broken block as an input error and accepts an unclosed last block', () => {
    const broken = parseTextToolCalls('<tool_call>{"name": "read_file", "arguments": {"path": </tool_call>');
    expect(broken.calls[0]?.inputError).toMatch(/invalid JSON/);
    const unclosed = parseTextToolCalls('ok <tool_call>{"name": "read_file", "arguments": {"path": "b"}}');
    expect(unclosed.calls[0]?.input).toEqual({ path: 'b' });
    expect(unclosed.visibleText).toBe('ok');
  });

  it('holds tool-call blocks back while they stream, even when the tag is split across deltas', () => {
    const filter = createToolCallTextFilter();
    const deltas = ['Looking', ' now <tool', '_call>{"name":', '"x"}</tool_', 'call> done', ' <to'];
    const shown = deltas.map((delta) => filter.push(delta)).join('') + filter.flush();
    expect(shown).toBe('Looking now  done <to');
  });
});

describe('text tool-call mode in the loop', () => {
  it('describes the tools in the prompt, runs parsed calls, and keeps blocks out of the visible text', async () => {
    const tools = createFakeToolRegistry([
      fakeTool('read_file', {
        properties: { path: { type: 'string', description: 'file to read' } },
        required: ['path'],
        execute: async (input) => ({ output: `contents of ${String(input['path'])}` }),
      }),
    ]);
    const model = createScriptedModel([
      say('Let me look.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>'),
      say('It exports main.'),
    ]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate(), settings: { nativeToolCalling: false } }).runTurn(input);

    const firstRequest = model.requests[0]!;
    expect(firstRequest.tools).toBeUndefined();
    const system = firstRequest.messages[0]!.content;
    expect(system).toContain('<tool_call>{"name": "tool_name", "arguments": {"parameter": "value"}}</tool_call>');
    expect(system).toContain('- read_file: The read_file tool.');
    expect(system).toContain('path (string, required): file to read');

    expect(tools.executed).toEqual([{ name: 'read_file', input: { path: 'a.ts' } }]);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'contents of a.ts' });
    expect(result.text).toBe('Let me look.\n\nIt exports main.');
    expect(result.text).not.toContain('tool_call');
    const streamed = input.events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(streamed).not.toContain('tool_call');
    assertValidHistory(result.history);
  });
});
