import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import type { AgentEvent } from '../../../src/core/agent/agent-events.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { Role } from '../../../src/core/data/types.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, createRoster, turnInput } from './support/fixtures.js';

const registry = () =>
  createFakeToolRegistry([
    fakeTool('read_file', { properties: { path: { type: 'string' } }, required: ['path'] }),
    fakeTool('audit_code', { riskLevel: 'RESTRICTED', properties: { path: { type: 'string' } }, required: ['path'] }),
    fakeTool('big_brain', { requiredTier: 'LARGE' }),
    fakeTool('save_memory', { properties: { content: { type: 'string' } }, required: ['content'] }),
    fakeTool('recall_memory'),
    fakeTool('load_tools', { properties: { names: { type: 'array' } }, required: ['names'] }),
    fakeTool('write_file', { riskLevel: 'RESTRICTED' }),
  ]);

// The auditor's core is read_file; audit_code, big_brain (LARGE) and the memory tools come on demand.
const auditor: Role = {
  name: 'security_auditor',
  displayName: 'Security auditor',
  description: 'Finds vulnerabilities.',
  systemPrompt: 'You hunt for injection flaws.',
  allowedTools: ['read_file', 'audit_code', 'big_brain', 'save_memory', 'recall_memory', 'load_tools'],
  coreTools: ['read_file'],
};

function rosterWith(role: Role) {
  const roster = createRoster();
  roster.roles.set(role.name, role);
  return roster;
}

const offered = (model: ReturnType<typeof createScriptedModel>, call: number) => (model.requests[call]?.tools ?? []).map((tool) => tool.name).sort();
const finished = (events: AgentEvent[]) =>
  events.filter((event): event is Extract<AgentEvent, { type: 'tool-call-finished' }> => event.type === 'tool-call-finished');

describe('tools a role allows are reachable', () => {
  it('names the allowed tools not offered yet, with a one-line purpose, and leaves out those above the tier', async () => {
    const model = createScriptedModel([say('ok')]);
    await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(
      turnInput({ roster: rosterWith(auditor), activeRole: 'security_auditor' }),
    );
    const system = model.requests[0]!.messages[0]!.content;
    expect(system).toContain('## Tools available on demand');
    expect(system).toContain('- audit_code: The audit_code tool.');
    expect(system).toContain('- save_memory: The save_memory tool.');
    expect(system).not.toContain('- big_brain');
    expect(system).not.toContain('- read_file:');
    expect(offered(model, 0)).toEqual(['load_tools', 'read_file']);
  });

  it('loads and runs a deferred tool called directly, after asking like any other RESTRICTED call, and offers it from then on', async () => {
    const tools = registry();
    const gate = createFakeGate(async () => ({ outcome: 'approved', decidedBy: 'slack:U1' }));
    const model = createScriptedModel([callTool('audit_code', { path: 'src' }, 'c1'), say('Two findings.')]);
    const input = turnInput({ roster: rosterWith(auditor), activeRole: 'security_auditor' });
    const result = await createAgentRunner({ model, tools, permissions: gate }).runTurn(input);

    expect(gate.requests.map((request) => request.toolName)).toEqual(['audit_code']);
    expect(tools.executed).toEqual([{ name: 'audit_code', input: { path: 'src' } }]);
    expect(finished(input.events)[0]?.outcome).toBe('ok');
    expect(offered(model, 1)).toContain('audit_code');
    expect(result.loadedTools).toContain('audit_code');
  });

  it('still validates a directly called deferred tool before anything runs', async () => {
    const tools = registry();
    const model = createScriptedModel([callTool('audit_code', { wrong: 1 }, 'c1'), say('ok')]);
    const input = turnInput({ roster: rosterWith(auditor), activeRole: 'security_auditor' });
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);
    expect(tools.executed).toEqual([]);
    expect(finished(input.events)[0]?.outcome).toBe('refused');
  });

  it('refuses a tool outside the role and one above the tier, naming what is available including on-demand tools', async () => {
    const tools = registry();
    const model = createScriptedModel([callTool('write_file', {}, 'c1'), callTool('big_brain', {}, 'c2'), say('ok')]);
    const input = turnInput({ roster: rosterWith(auditor), activeRole: 'security_auditor' });
    await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);

    expect(tools.executed).toEqual([]);
    const results = model.requests[2]!.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toMatch(
      /^Error: the tool write_file is not available to you \(your role \(security_auditor\) does not allow write_file\)\. Available tools: .*audit_code/,
    );
    expect(results[1]).toMatch(/big_brain needs a larger model than this one \(tier MEDIUM\)/);
    expect(results[1]).toContain('save_memory');
  });

  it('offers the memory tools from the first round to a role whose prompt speaks of memory', async () => {
    const remembering: Role = { ...auditor, systemPrompt: 'Save what you learn with save_memory.' };
    const model = createScriptedModel([say('ok')]);
    await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(
      turnInput({ roster: rosterWith(remembering), activeRole: 'security_auditor' }),
    );
    expect(offered(model, 0)).toEqual(['load_tools', 'read_file', 'recall_memory', 'save_memory']);
  });
});
