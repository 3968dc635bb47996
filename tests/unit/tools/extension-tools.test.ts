import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../../src/core/data/types.js';
import { builtinToolImplementations } from '../../../src/core/tools/builtin-tools.js';
import { createRoleTool } from '../../../src/core/tools/impl/create-role.js';
import { createToolTool } from '../../../src/core/tools/impl/create-tool.js';
import { loadToolsTool } from '../../../src/core/tools/impl/load-tools.js';
import { switchSkillTool } from '../../../src/core/tools/impl/switch-skill.js';
import type { AgentControlService } from '../../../src/core/tools/tool.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

function fakeAgent() {
  return {
    loadTools: vi.fn((names: string[]) => ({
      loaded: names.filter((name) => name !== 'execute_command'),
      rejected: names.filter((name) => name === 'execute_command').map((name) => ({ name, reason: 'not allowed for this role' })),
    })),
    switchRole: vi.fn((role: string) =>
      role === 'developer' ? { ok: true, message: 'Now working as developer.' } : { ok: false, message: `No role ${role}.` },
    ),
    addRole: vi.fn((role: Role) => ({ ok: true, message: `Role ${role.name} added.` })),
  } satisfies AgentControlService;
}

let test: TestToolContext;
let agent: ReturnType<typeof fakeAgent>;
beforeEach(async () => {
  agent = fakeAgent();
  test = await createTestToolContext({ services: { agent, toolNames: ['read_file', 'grep_search', 'write_file'] } });
});
afterEach(() => test.cleanup());

describe('load_tools and switch_skill', () => {
  it('load_tools calls the service and reports loaded and rejected', async () => {
    const result = await loadToolsTool.execute({ names: ['grep_search', 'execute_command'] }, test.context);
    expect(agent.loadTools).toHaveBeenCalledWith(['grep_search', 'execute_command']);
    expect(result.output).toBe('Loaded: grep_search. Rejected: execute_command (not allowed for this role).');
  });

  it('switch_skill calls the service and marks a refusal as an error', async () => {
    expect(await switchSkillTool.execute({ skill: 'developer' }, test.context)).toMatchObject({ output: 'Now working as developer.' });
    expect(await switchSkillTool.execute({ skill: 'pilot' }, test.context)).toMatchObject({ output: 'No role pilot.', isError: true });
    expect(agent.switchRole).toHaveBeenCalledTimes(2);
  });

  it('says so when no agent service is present', async () => {
    test.context.services = {};
    await expect(loadToolsTool.execute({ names: ['x'] }, test.context)).rejects.toThrow(/not available here/);
  });
});

describe('create_role', () => {
  const role = {
    name: 'release_manager',
    displayName: 'Release manager',
    description: 'Ships releases.',
    systemPrompt: 'You ship.',
    allowedTools: ['read_file', 'grep_search'],
  };

  it('validates and hands the role to the service', async () => {
    const result = await createRoleTool.execute(role, test.context);
    expect(agent.addRole).toHaveBeenCalledWith(role);
    expect(result.output).toBe('Role release_manager added. It is kept for this workspace (.tsuka/roles/release_manager.json).');
  });

  it('refuses a bad name and tools that do not exist, listing the ones that do', async () => {
    await expect(createRoleTool.execute({ ...role, name: 'Release-Manager', allowedTools: ['read_file', 'hack_planet'] }, test.context)).rejects.toThrow(
      /name "Release-Manager" must match .*unknown tools in allowedTools: hack_planet \(tools that exist: read_file, grep_search, write_file\)/,
    );
    expect(agent.addRole).not.toHaveBeenCalled();
  });
});

describe('create_tool', () => {
  const proposal = {
    name: 'count_lines',
    description: 'Counts lines in a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    command: 'wc -l {{path}}',
  };

  it('is absent from the builtin tools unless enabled', () => {
    expect(builtinToolImplementations({ enableCreateTool: false }).map((tool) => tool.name)).not.toContain('create_tool');
    expect(builtinToolImplementations({ enableCreateTool: true }).map((tool) => tool.name)).toContain('create_tool');
  });

  it('writes a DANGEROUS command-template description under .tsuka/tools', async () => {
    const result = await createToolTool.execute(proposal, test.context);
    const written: unknown = JSON.parse(await readFile(join(test.root, '.tsuka/tools/count_lines.json'), 'utf8'));
    expect(written).toMatchObject({ ...proposal, riskLevel: 'DANGEROUS', createdBy: 'geordi' });
    expect(result.output).toMatch(/^Wrote \.tsuka\/tools\/count_lines\.json\. The tool is not active/);
  });

  it('refuses undeclared placeholders, clashing names and invalid schemas', async () => {
    await expect(
      createToolTool.execute(
        { ...proposal, name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'nope' } } }, command: 'cat {{file}}' },
        test.context,
      ),
    ).rejects.toThrow(/already exists.*not a valid JSON Schema.*undeclared parameters: file/);
  });
});
