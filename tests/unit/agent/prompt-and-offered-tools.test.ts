import { describe, expect, it, vi } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { MemoryContextSource } from '../../../src/core/memory/memory-port.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, turnInput } from './support/fixtures.js';

const registry = () =>
  createFakeToolRegistry([
    fakeTool('read_file', { properties: { path: { type: 'string' } }, required: ['path'] }),
    fakeTool('write_file', { riskLevel: 'RESTRICTED' }),
    fakeTool('run_tests', { riskLevel: 'RESTRICTED', requiredTier: 'MEDIUM' }),
    fakeTool('big_brain', { requiredTier: 'LARGE' }),
    fakeTool('audit_code'),
    fakeTool('load_tools', { properties: { names: { type: 'array' } }, required: ['names'] }),
    fakeTool('not_allowed_anywhere'),
  ]);

const toolNames = (model: ReturnType<typeof createScriptedModel>, call = 0) => (model.requests[call]?.tools ?? []).map((tool) => tool.name).sort();

describe('prompt assembly', () => {
  it('puts identity, role, trait and memory in the system prompt, and asks memory with the user message and scope', async () => {
    const model = createScriptedModel([say('Because of a typo.')]);
    const memory: MemoryContextSource = { contextFor: vi.fn(async () => '- The API tests need Redis running.') };
    const runner = createAgentRunner({ model, tools: registry(), permissions: createFakeGate(), memory, settings: { memoryBudgetChars: 500 } });

    const result = await runner.runTurn(turnInput({ userName: 'ana.lopez', extraSystemPrompt: 'Keep it under 50 words.' }));

    expect(memory.contextFor).toHaveBeenCalledWith('Why does npm test fail?', { scope: 'workspace:/workspace', budgetChars: 500 });
    const [system, user] = model.requests[0]!.messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('Geordi La Forge');
    expect(system?.content).toContain('@Geordi');
    expect(system?.content).toContain('You write careful, tested code.');
    expect(system?.content).toContain('Answer calmly and precisely, without filler.');
    expect(system?.content).toContain('The API tests need Redis running.');
    expect(system?.content).toContain('Keep it under 50 words.');
    expect(user).toEqual({ role: 'user', content: 'Why does npm test fail?', name: 'ana_lopez' });
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('Because of a typo.');
    expect(result.history.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('leaves the memory section out when memory has nothing relevant', async () => {
    const model = createScriptedModel([say('ok')]);
    const runner = createAgentRunner({ model, tools: registry(), permissions: createFakeGate(), memory: { contextFor: async () => '' } });
    await runner.runTurn(turnInput());
    expect(model.requests[0]!.messages[0]!.content).not.toContain('Relevant memory');
  });

  it('answers without memory when the memory lookup fails', async () => {
    const model = createScriptedModel([say('still here')]);
    const memory: MemoryContextSource = { contextFor: async () => Promise.reject(new Error('disk gone')) };
    const runner = createAgentRunner({ model, tools: registry(), permissions: createFakeGate(), memory });
    const result = await runner.runTurn(turnInput());
    expect(result.finishReason).toBe('stop');
    expect(result.text).toBe('still here');
  });
});

describe('offered tools', () => {
  it('offers the role allowed tools that the tier reaches, hiding a LARGE-only tool from a SMALL model', async () => {
    const small = createScriptedModel([say('ok')]);
    await createAgentRunner({ model: small, tools: registry(), permissions: createFakeGate(), settings: { tier: 'SMALL' } }).runTurn(turnInput());
    expect(toolNames(small)).toEqual(['load_tools', 'read_file', 'write_file']);

    const large = createScriptedModel([say('ok')]);
    await createAgentRunner({ model: large, tools: registry(), permissions: createFakeGate(), settings: { tier: 'LARGE' } }).runTurn(turnInput());
    expect(toolNames(large)).toEqual(['big_brain', 'load_tools', 'read_file', 'run_tests', 'write_file']);
  });

  it('offers only core tools plus load_tools for a role with coreTools, and adds loaded tools within allowedTools', async () => {
    const model = createScriptedModel([say('ok'), say('ok')]);
    const runner = createAgentRunner({ model, tools: registry(), permissions: createFakeGate() });

    await runner.runTurn(turnInput({ activeRole: 'security_auditor' }));
    expect(toolNames(model, 0)).toEqual(['load_tools', 'read_file']);

    await runner.runTurn(turnInput({ activeRole: 'security_auditor', loadedTools: ['audit_code', 'not_allowed_anywhere'] }));
    expect(toolNames(model, 1)).toEqual(['audit_code', 'load_tools', 'read_file']);
  });

  it('sends no tools at all when allowTools is false', async () => {
    const model = createScriptedModel([say('I think caching is wise.')]);
    await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(turnInput({ allowTools: false }));
    expect(model.requests[0]!.tools).toBeUndefined();
    expect(model.requests[0]!.messages[0]!.content).not.toContain('<tool_call>');
  });
});
