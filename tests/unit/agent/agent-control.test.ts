import { describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import type { AgentControlService } from '../../../src/core/tools/tool.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, turnInput } from './support/fixtures.js';

/** The agent service as a tool sees it; tools take `services` as unknown and check it. */
function agentService(services: Record<string, unknown>): AgentControlService {
  const agent = services['agent'] as AgentControlService | undefined;
  if (!agent || typeof agent.switchRole !== 'function') throw new Error('no agent service');
  return agent;
}

const registry = () =>
  createFakeToolRegistry([
    fakeTool('read_file'),
    fakeTool('audit_code'),
    fakeTool('write_file'),
    fakeTool('switch_skill', {
      properties: { role: { type: 'string' } },
      required: ['role'],
      execute: async (input, context) => ({ output: agentService(context.services).switchRole(String(input['role'])).message }),
    }),
    fakeTool('load_tools', {
      properties: { names: { type: 'array' } },
      required: ['names'],
      execute: async (input, context) => ({ output: JSON.stringify(agentService(context.services).loadTools(input['names'] as string[])) }),
    }),
  ]);

const offered = (model: ReturnType<typeof createScriptedModel>, call: number) => (model.requests[call]?.tools ?? []).map((tool) => tool.name).sort();

describe('agent control service', () => {
  it('switch_skill changes the active role for the next model call', async () => {
    const model = createScriptedModel([callTool('switch_skill', { role: 'security_auditor' }, 's1'), say('Auditing now.')]);
    const result = await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(turnInput());

    expect(model.requests[0]!.messages[0]!.content).toContain('You write careful, tested code.');
    expect(model.requests[1]!.messages[0]!.content).toContain('You hunt for injection flaws.');
    expect(offered(model, 1)).toEqual(['load_tools', 'read_file']);
    expect(result.activeRole).toBe('security_auditor');
  });

  it('switch_skill refuses a role the character does not have', async () => {
    const model = createScriptedModel([callTool('switch_skill', { role: 'pirate' }, 's1'), say('Staying.')]);
    const result = await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(turnInput());
    expect(model.requests[1]!.messages.at(-1)?.content).toContain('There is no role "pirate"');
    expect(result.activeRole).toBe('developer');
  });

  it('load_tools adds allowed tools to the offered set and rejects the rest', async () => {
    const model = createScriptedModel([callTool('load_tools', { names: ['audit_code', 'write_file', 'nope'] }, 'l1'), say('Loaded.')]);
    const result = await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(turnInput({ activeRole: 'security_auditor' }));

    expect(offered(model, 0)).toEqual(['load_tools', 'read_file']);
    expect(offered(model, 1)).toEqual(['audit_code', 'load_tools', 'read_file']);
    const report = JSON.parse(model.requests[1]!.messages.at(-1)!.content) as ReturnType<AgentControlService['loadTools']>;
    expect(report.loaded).toEqual(['audit_code']);
    expect(report.rejected.map((entry) => entry.name)).toEqual(['write_file', 'nope']);
    expect(result.loadedTools).toEqual(['audit_code']);
  });

  it('addRole makes a new role switchable in the session', async () => {
    let added: { ok: boolean } | undefined;
    const tools = createFakeToolRegistry([
      fakeTool('read_file'),
      fakeTool('create_role', {
        execute: async (_input, context) => {
          const agent = agentService(context.services);
          added = agent.addRole({
            name: 'tester',
            displayName: 'Tester',
            description: 'Tests.',
            systemPrompt: 'You break things.',
            allowedTools: ['read_file'],
          });
          return { output: agent.switchRole('tester').message };
        },
      }),
    ]);
    const input = turnInput();
    const developer = input.roster.roles.get('developer')!;
    input.roster.roles.set('developer', { ...developer, allowedTools: ['create_role', 'read_file'] });
    const model = createScriptedModel([callTool('create_role', {}, 'r1'), say('I am a tester now.')]);
    const result = await createAgentRunner({ model, tools, permissions: createFakeGate() }).runTurn(input);
    expect(added).toMatchObject({ ok: true, message: expect.stringContaining('tester'), role: { ceiling: ['create_role', 'read_file'], createdBy: 'geordi' } });
    expect(result.activeRole).toBe('tester');
    expect(model.requests[1]!.messages[0]!.content).toContain('You break things.');
  });
});
