import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import type { AgentEvent } from '../../../src/core/agent/agent-events.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { ChatMessage, ModelRequest } from '../../../src/core/model/language-model.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { assertValidHistory, createFakeGate, turnInput } from './support/fixtures.js';

const registry = () =>
  createFakeToolRegistry([
    fakeTool('read_file', {
      properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
      required: ['path'],
      execute: async (input) => ({ output: `contents of ${String(input['path'])}`, display: '1.2 KB' }),
    }),
    fakeTool('write_file', { riskLevel: 'RESTRICTED', properties: { path: { type: 'string' } }, required: ['path'] }),
    fakeTool('big_brain', { riskLevel: 'DANGEROUS', requiredTier: 'LARGE' }),
  ]);

const lastToolMessage = (request: ModelRequest | undefined) =>
  request?.messages.filter((message): message is Extract<ChatMessage, { role: 'tool' }> => message.role === 'tool').at(-1);
const finished = (events: AgentEvent[]) =>
  events.filter((event): event is Extract<AgentEvent, { type: 'tool-call-finished' }> => event.type === 'tool-call-finished');

describe('tool execution', () => {
  it('refuses a tool that is not offered, tells the model what is available, and goes on to a final answer', async () => {
    const tools = registry();
    const model = createScriptedModel([callTool('big_brain', {}, 'c1'), say('Fine, without it.')]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);

    expect(tools.executed).toEqual([]);
    const refusal = lastToolMessage(model.requests[1]);
    expect(refusal?.content).toMatch(
      /^Error: the tool big_brain is not available to you \(big_brain needs a larger model than this one \(tier MEDIUM\)\)\. Available tools: .*read_file/,
    );
    expect(finished(input.events)[0]?.outcome).toBe('refused');
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Fine, without it.');
    assertValidHistory(result.history);
  });

  it('refuses invalid input with the validation message', async () => {
    const tools = registry();
    const model = createScriptedModel([callTool('read_file', { file: 'a.ts' }, 'c1'), say('Sorry.')]);
    const input = turnInput();
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);

    expect(tools.executed).toEqual([]);
    expect(lastToolMessage(model.requests[1])?.content).toContain('read_file: "path" is required.');
    expect(finished(input.events)[0]?.outcome).toBe('refused');
  });

  it('refuses a call whose arguments could not be parsed, saying how to fix it', async () => {
    const tools = registry();
    const model = createScriptedModel([
      [
        { type: 'tool-call', toolCall: { id: 'c1', name: 'read_file', arguments: '{"path": ' }, input: undefined, inputError: 'Unexpected end of JSON input' },
        { type: 'finish', reason: 'tool-calls' },
      ],
      say('Retrying later.'),
    ]);
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(turnInput());
    const content = lastToolMessage(model.requests[1])?.content ?? '';
    expect(content).toContain('Unexpected end of JSON input');
    expect(content).toContain('one JSON object');
    expect(tools.executed).toEqual([]);
  });

  it('runs a SAFE tool at once without asking, and reports it with its display', async () => {
    const tools = registry();
    const gate = createFakeGate();
    const model = createScriptedModel([callTool('read_file', { path: 'src/app.ts' }, 'c1'), say('It imports x.')]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(input);

    expect(gate.requests).toEqual([]);
    expect(tools.executed).toEqual([{ name: 'read_file', input: { path: 'src/app.ts' } }]);
    expect(lastToolMessage(model.requests[1])).toEqual({ role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'contents of src/app.ts' });
    const started = input.events.find((event) => event.type === 'tool-call-started');
    expect(started).toMatchObject({ summary: 'read_file src/app.ts', riskLevel: 'SAFE' });
    expect(finished(input.events)[0]).toMatchObject({ outcome: 'ok', display: '1.2 KB' });
    expect(result.usage.toolCalls).toBe(1);
    expect(result.usage.modelCalls).toBe(2);
  });

  it('asks for a RESTRICTED call; a denial reaches the model and the loop goes on', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'denied', decidedBy: 'slack:U1', note: 'not on main' }));
    const model = createScriptedModel([callTool('write_file', { path: 'a.ts' }, 'c7'), say('Understood, I will not write.')]);
    const input = turnInput({ requesterId: 'slack:U1' });
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(input);

    expect(gate.requests).toEqual([
      {
        id: 'run-1:c7',
        runId: 'run-1',
        toolCallId: 'c7',
        toolName: 'write_file',
        riskLevel: 'RESTRICTED',
        reason: 'write_file is RESTRICTED',
        summary: 'write_file a.ts',
        details: ['details of write_file'],
        agentName: 'geordi',
        requesterId: 'slack:U1',
        allowForRun: true,
        // The call's own arguments: the approval's fingerprint binds the decision to them.
        arguments: { path: 'a.ts' },
      },
    ]);
    expect(tools.executed).toEqual([]);
    expect(lastToolMessage(model.requests[1])?.content).toBe('Denied by the user: not on main. Do not retry the same call; choose another approach or ask.');
    expect(finished(input.events)[0]).toMatchObject({ outcome: 'denied', display: 'denied by slack:U1' });
    expect(result.text).toBe('Understood, I will not write.');
  });

  it('a denial nobody made (headless without --yes) is not said to come from the user', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'denied', note: 'not allowed in headless mode (run again with --yes to allow)' }));
    const model = createScriptedModel([callTool('write_file', { path: 'a.ts' }, 'c8'), say('Fine.')]);
    await createAgentRunner({ model, tools, permissions: gate }).runTurn(turnInput({ requesterId: 'cli:local' }));
    expect(lastToolMessage(model.requests[1])?.content).toBe(
      'Denied: not allowed in headless mode (run again with --yes to allow). Do not retry the same call; choose another approach or ask.',
    );
  });

  it('runs a RESTRICTED call once approved', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'approved', decidedBy: 'slack:U1' }));
    const model = createScriptedModel([callTool('write_file', { path: 'a.ts' }, 'c1'), say('Done.')]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(input);

    expect(gate.requests).toHaveLength(1);
    expect(tools.executed).toEqual([{ name: 'write_file', input: { path: 'a.ts' } }]);
    expect(lastToolMessage(model.requests[1])?.content).toBe('write_file done');
    expect(finished(input.events)[0]?.outcome).toBe('ok');
    expect(result.text).toBe('Done.');
  });

  it('asks with allowForRun false for a DANGEROUS call', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'approved' }));
    const model = createScriptedModel([callTool('big_brain', {}, 'c1'), say('Done.')]);
    const input = turnInput();
    await createAgentRunner({ model, tools, permissions: gate, settings: { tier: 'LARGE' } }).runTurn(input);
    expect(gate.requests[0]).toMatchObject({ toolName: 'big_brain', riskLevel: 'DANGEROUS', allowForRun: false });
    expect(tools.executed.map((call) => call.name)).toEqual(['big_brain']);
  });

  it('runs several calls of one message in order and gives the model all results together', async () => {
    const tools = registry();
    const model = createScriptedModel([
      [
        { type: 'tool-call', toolCall: { id: 'a', name: 'read_file', arguments: '{"path":"one"}' }, input: { path: 'one' } },
        { type: 'tool-call', toolCall: { id: 'b', name: 'read_file', arguments: '{"path":"two"}' }, input: { path: 'two' } },
        { type: 'finish', reason: 'tool-calls' },
      ],
      say('Both read.'),
    ]);
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(turnInput());
    expect(tools.executed.map((call) => call.input['path'])).toEqual(['one', 'two']);
    const secondRequest = model.requests[1]!.messages.slice(-3);
    expect(secondRequest.map((message) => message.role)).toEqual(['assistant', 'tool', 'tool']);
    expect(secondRequest.slice(1).map((message) => (message.role === 'tool' ? message.toolCallId : ''))).toEqual(['a', 'b']);
    assertValidHistory(result.history);
  });

  it('turns a failing tool into an error result the model reads', async () => {
    const tools = createFakeToolRegistry([fakeTool('read_file', { execute: async () => Promise.reject(new Error('EACCES: permission denied\nmore')) })]);
    const model = createScriptedModel([callTool('read_file', {}, 'c1'), say('No access.')]);
    const input = turnInput();
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);
    expect(lastToolMessage(model.requests[1])?.content).toContain('EACCES');
    expect(finished(input.events)[0]).toMatchObject({ outcome: 'error', display: 'Error: EACCES: permission denied' });
    expect(result.finishReason).toBe('stop');
  });
});

describe('tool call ids', () => {
  it('makes ids unique when a server reuses them across rounds, so results and approvals never collide', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'approved' }));
    const model = createScriptedModel([callTool('write_file', { path: 'a' }, 'call_0'), callTool('write_file', { path: 'b' }, 'call_0'), say('Both written.')]);
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(turnInput());
    const ids = gate.requests.map((request) => request.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toBe('run-1:call_0');
    assertValidHistory(result.history);
  });
});
