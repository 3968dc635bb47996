import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { Role } from '../../../src/core/data/types.js';
import type { ToolRegistry } from '../../../src/core/tools/tool.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, createRoster, turnInput } from './support/fixtures.js';

const role: Role = {
  name: 'reader',
  displayName: 'Reader',
  description: 'Reads files.',
  systemPrompt: 'You read files.',
  allowedTools: ['read_file', 'audit_code', 'load_tools'],
  coreTools: ['read_file'],
};

/** The registry, counting how often the loop asks it for definitions. */
function countingRegistry(): { tools: ToolRegistry; calls: () => number } {
  const inner = createFakeToolRegistry([
    fakeTool('read_file', { properties: { path: { type: 'string' } }, required: ['path'] }),
    fakeTool('audit_code'),
    fakeTool('load_tools', { properties: { names: { type: 'array' } }, required: ['names'] }),
  ]);
  let calls = 0;
  const tools: ToolRegistry = {
    ...inner,
    definitionsFor(names, tier) {
      calls++;
      return inner.definitionsFor(names, tier);
    },
  };
  return { tools, calls: () => calls };
}

const input = () => {
  const roster = createRoster();
  roster.roles.set(role.name, role);
  return turnInput({ roster, activeRole: role.name });
};

describe('work per tool round does not grow with the rounds', () => {
  it('builds the offered tool list once in a 12-round turn where nothing changes', async () => {
    const { tools, calls } = countingRegistry();
    const rounds = Array.from({ length: 11 }, (_, index) => callTool('read_file', { path: `f${index}` }, `c${index}`));
    const model = createScriptedModel([...rounds, say('done')]);
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input());
    expect(result.finishReason).toBe('stop');
    expect(model.requests).toHaveLength(12);
    // The registry is asked only for the first round (offered + on demand), not for each of the 12.
    expect(calls()).toBe(2);
  });

  it('builds it again once a tool is loaded mid-turn, and offers the loaded tool from then on', async () => {
    const { tools, calls } = countingRegistry();
    const model = createScriptedModel([
      callTool('read_file', { path: 'a' }, 'c1'),
      callTool('audit_code', {}, 'c2'),
      callTool('audit_code', {}, 'c3'),
      callTool('read_file', { path: 'b' }, 'c4'),
      say('done'),
    ]);
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input());
    const offered = model.requests.map((request) =>
      (request.tools ?? [])
        .map((tool) => tool.name)
        .sort()
        .join(','),
    );
    expect(offered).toEqual([
      'load_tools,read_file',
      'load_tools,read_file',
      'audit_code,load_tools,read_file',
      'audit_code,load_tools,read_file',
      'audit_code,load_tools,read_file',
    ]);
    expect(calls()).toBe(4);
  });

  it('keeps repeated call ids unique across rounds (servers that number calls from zero each answer)', async () => {
    const { tools } = countingRegistry();
    const model = createScriptedModel([callTool('read_file', { path: 'a' }, 'call_0'), callTool('read_file', { path: 'b' }, 'call_0'), say('done')]);
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input());
    const ids = result.history.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : []));
    expect(ids).toEqual(['call_0', 'call_0_r2_1']);
  });

  it('offers a tool that appears in the registry mid-turn (a created tool, an MCP server now ready) from the next round', async () => {
    const inner = createFakeToolRegistry([fakeTool('read_file', { properties: { path: { type: 'string' } }, required: ['path'] }), fakeTool('audit_code')]);
    let ready = false;
    const present = (name: string) => name !== 'audit_code' || ready;
    const tools: ToolRegistry = {
      ...inner,
      has: (name) => present(name) && inner.has(name),
      names: () => inner.names().filter(present),
      definitionsFor: (names, tier) => inner.definitionsFor([...names].filter(present), tier),
      execute: async (name, toolInput, context) => {
        ready = true;
        return inner.execute(name, toolInput, context);
      },
    };
    const open: Role = { ...role, allowedTools: ['read_file', 'audit_code'], coreTools: undefined };
    const roster = createRoster();
    roster.roles.set(open.name, open);
    const model = createScriptedModel([callTool('read_file', { path: 'a' }, 'c1'), say('done')]);
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(turnInput({ roster, activeRole: open.name }));
    const offered = model.requests.map((request) =>
      (request.tools ?? [])
        .map((tool) => tool.name)
        .sort()
        .join(','),
    );
    expect(offered).toEqual(['read_file', 'audit_code,read_file']);
  });
});
