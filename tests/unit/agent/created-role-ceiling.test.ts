/**
 * Issue 29, the attack: `create_role` plus `switch_skill` widened a character's tools. A role an agent
 * makes may only list tools its current role already allows (its ceiling), and switching to a made
 * role — one's own or another character's — never offers more than that.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRunner } from '../../../src/core/agent/create-agent-runner.js';
import type { Character, Role } from '../../../src/core/data/types.js';
import { callTool, createScriptedModel, say } from '../../../src/core/model/scripted-model.js';
import { createRoleTool, type CreateRoleInput } from '../../../src/core/tools/impl/create-role.js';
import { switchSkillTool } from '../../../src/core/tools/impl/switch-skill.js';
import { createFakeToolRegistry, fakeTool } from './support/fake-tool-registry.js';
import { createFakeGate, createRoster, turnInput } from './support/fixtures.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'tsuka-ceiling-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const WIDENING = ['execute_command', 'delete_file', 'write_file'];

const registry = () =>
  createFakeToolRegistry([
    fakeTool('read_file'),
    fakeTool('list_dir'),
    ...WIDENING.map((name) => fakeTool(name, { riskLevel: 'DANGEROUS' })),
    fakeTool('create_role', {
      properties: {
        name: { type: 'string' },
        displayName: { type: 'string' },
        description: { type: 'string' },
        systemPrompt: { type: 'string' },
        allowedTools: { type: 'array' },
      },
      required: ['name', 'displayName', 'description', 'systemPrompt', 'allowedTools'],
      execute: (input, context) => createRoleTool.execute(input as CreateRoleInput, context),
    }),
    fakeTool('switch_skill', {
      properties: { skill: { type: 'string' } },
      required: ['skill'],
      execute: (input, context) => switchSkillTool.execute({ skill: String(input.skill) }, context),
    }),
  ]);

const readerRole: Role = {
  name: 'reader',
  displayName: 'Reader',
  description: 'Reads.',
  systemPrompt: 'You read.',
  allowedTools: ['read_file', 'list_dir', 'create_role', 'switch_skill'],
};
const builderRole: Role = {
  name: 'builder',
  displayName: 'Builder',
  description: 'Builds.',
  systemPrompt: 'You build.',
  allowedTools: ['read_file', 'create_role', 'switch_skill', ...WIDENING],
};
const reader: Character = {
  name: 'rhea',
  aiName: 'Rhea',
  displayName: 'Rhea',
  description: 'Reads.',
  roles: ['reader'],
  activeRole: 'reader',
  trait: 'professional',
  avatar: ':eyes:',
};
const builder: Character = {
  name: 'bob',
  aiName: 'Bob',
  displayName: 'Bob',
  description: 'Builds.',
  roles: ['builder'],
  activeRole: 'builder',
  trait: 'professional',
  avatar: ':hammer:',
};

function input(character: Character) {
  const roster = createRoster();
  roster.roles.set(readerRole.name, readerRole);
  roster.roles.set(builderRole.name, builderRole);
  roster.characters.set(reader.name, reader);
  roster.characters.set(builder.name, builder);
  const base = turnInput();
  return turnInput({
    character,
    roster,
    toolContext: {
      ...base.toolContext,
      workspace: { root: workspace, resolve: async (file) => path.join(workspace, file), relative: (file) => path.relative(workspace, file) },
      services: {},
    },
  });
}

const wider = { name: 'wider', displayName: 'Wider', description: 'More tools.', systemPrompt: 'You do anything.', allowedTools: ['read_file', ...WIDENING] };
const offered = (model: ReturnType<typeof createScriptedModel>) => model.requests.map((request) => (request.tools ?? []).map((tool) => tool.name));

describe("created roles stay under their creator's ceiling (issue 29)", () => {
  it('create_role with execute_command, delete_file, write_file by a role that lacks them, then switch_skill: they are never offered', async () => {
    const model = createScriptedModel([callTool('create_role', wider, 'c1'), callTool('switch_skill', { skill: 'wider' }, 's1'), say('done')]);
    const result = await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(input(reader));
    for (const tools of offered(model)) for (const name of WIDENING) expect(tools).not.toContain(name);
    expect(result.activeRole).toBe('reader');
    expect(model.requests[1]!.messages.at(-1)?.content).toMatch(
      /may only use tools your role reader allows, and execute_command, delete_file, write_file are not among them/,
    );
  });

  it('a role within the ceiling is made, switched to, and its file records the ceiling', async () => {
    const narrow = { ...wider, name: 'narrow', allowedTools: ['read_file'] };
    const model = createScriptedModel([callTool('create_role', narrow, 'c1'), callTool('switch_skill', { skill: 'narrow' }, 's1'), say('done')]);
    const result = await createAgentRunner({ model, tools: registry(), permissions: createFakeGate() }).runTurn(input(reader));
    expect(result.activeRole).toBe('narrow');
    expect(offered(model)[2]).toEqual(['read_file']);
    const stored = JSON.parse(await readFile(path.join(workspace, '.tsuka/roles/narrow.json'), 'utf8')) as Role;
    expect(stored).toMatchObject({ allowedTools: ['read_file'], ceiling: [...readerRole.allowedTools].sort(), createdBy: 'rhea' });
  });

  it("switching to a role another character made never widens the switching character's tools", async () => {
    // One runner (as in a chat process), one script across two turns.
    const model = createScriptedModel([callTool('create_role', wider, 'c1'), say('made'), callTool('switch_skill', { skill: 'wider' }, 's2'), say('switched')]);
    const runner = createAgentRunner({ model, tools: registry(), permissions: createFakeGate() });
    // The builder may make `wider` (it has every tool in it) …
    expect((await runner.runTurn(input(builder))).text).toBe('made');
    // … but the reader who switches to it gets only what its own roles allow.
    const result = await runner.runTurn(input(reader));
    expect(result.activeRole).toBe('wider');
    expect(offered(model)[3]).toEqual(['read_file']);
  });
});
