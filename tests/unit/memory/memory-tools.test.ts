import { Ajv } from 'ajv';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.js';
import { SHARED_MEMORY_SCOPE } from '../../../src/core/memory/memory-fact.js';
import { createMemoryStore, type MemoryStore } from '../../../src/core/memory/memory-store.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { memoryToolImplementations } from '../../../src/core/tools/impl/memory-tools.js';
import type { ToolContext, ToolImplementation, ToolSchema } from '../../../src/core/tools/tool.js';
import { ToolFailureError } from '../../../src/core/tools/tool-failure-error.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

const WORKSPACE = '/srv/project-a';
/** The conversation the tools run in: channel C1 of Slack team T1. */
const SCOPE = 'channel:slack:T1/C1';
const OTHER_CHANNEL = 'channel:slack:T1/C2';
const ADMIN = 'slack:UADMIN';
const TOOL_NAMES = ['save_memory', 'recall_memory', 'update_memory', 'forget_memory'];
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

type ContextOptions = { user?: string; scope?: string; approvedBy?: string };

async function setup(): Promise<{
  memory: MemoryStore;
  tools: Map<string, ToolImplementation>;
  contextFor: (agent: string, options?: ContextOptions) => ToolContext;
}> {
  const store = await openStore({ url: 'memory', dataDirectory: '/unused' });
  opened.push(store);
  const memory = createMemoryStore({ store });
  const tools = new Map(memoryToolImplementations().map((tool) => [tool.name, tool]));
  const contextFor = (agentName: string, options: ContextOptions = {}): ToolContext => ({
    workspace: { root: WORKSPACE, resolve: async (path) => path, relative: (path) => path },
    signal: new AbortController().signal,
    childEnv: {},
    sandbox: createFallbackSandbox(),
    maskSecrets: (text) => text,
    runId: 'run-1',
    agentName,
    logger: silentLogger,
    ...(options.approvedBy ? { approvedBy: options.approvedBy } : {}),
    services: { memory, memoryAccess: { scope: options.scope ?? SCOPE, user: options.user ?? 'slack:U1', isAdmin: (user: string) => user === ADMIN } },
  });
  return { memory, tools, contextFor };
}

function tool(tools: Map<string, ToolImplementation>, name: string): ToolImplementation {
  const found = tools.get(name);
  if (!found) throw new Error(`missing tool ${name}`);
  return found;
}

describe('memory tools', () => {
  it('ship SAFE schemas whose parameters accept good input and reject bad input', async () => {
    const ajv = new Ajv({ strict: false });
    for (const name of TOOL_NAMES) {
      const schema = JSON.parse(await readFile(new URL(`../../../tools_schemas/${name}.json`, import.meta.url), 'utf8')) as ToolSchema;
      expect(schema).toMatchObject({ name, riskLevel: 'SAFE', requiredTier: 'SMALL' });
      expect(schema.description.length).toBeGreaterThan(20);
      const validate = ajv.compile(schema.parameters);
      expect(validate({ unexpected: true }), name).toBe(false);
    }
    const save = ajv.compile(
      (JSON.parse(await readFile(new URL('../../../tools_schemas/save_memory.json', import.meta.url), 'utf8')) as ToolSchema).parameters,
    );
    expect(save({ content: 'x', kind: 'decision', scope: 'shared' })).toBe(true);
    expect(save({ content: 'x', global: true })).toBe(false);
    expect(save({ content: 'x', kind: 'opinion' })).toBe(false);
    expect(save({})).toBe(false);
    expect([...memoryToolImplementations().map((implementation) => implementation.name)].sort()).toEqual([...TOOL_NAMES].sort());
  });

  it('saves under the calling agent, the requester and the conversation scope, and another agent recalls it', async () => {
    const { memory, tools, contextFor } = await setup();
    const saved = await tool(tools, 'save_memory').execute({ content: 'The build uses Bazel 7.', kind: 'lesson' }, contextFor('geordi'));
    expect(saved.output).toMatch(/^Saved [0-9a-f]{6}-[0-9a-f]{8} to the memory of this conversation/);
    const [fact] = await memory.list(SCOPE);
    expect(fact).toMatchObject({ author: 'geordi', savedBy: 'slack:U1', kind: 'lesson', scope: SCOPE });
    const recalled = await tool(tools, 'recall_memory').execute({ query: 'bazel build' }, contextFor('worf'));
    expect(recalled.output).toContain(fact!.id);
    expect(recalled.output).toContain('The build uses Bazel 7.');
    expect(recalled.display).toBe('1 fact');
    const again = await tool(tools, 'save_memory').execute({ content: 'the build uses bazel 7' }, contextFor('spock'));
    expect(again.output).toContain('merged');
  });

  it('asks (DANGEROUS) before a shared save, and shares only when an admin approved it', async () => {
    const { memory, tools, contextFor } = await setup();
    const save = tool(tools, 'save_memory');
    expect(await save.classify!({ content: 'Answer in English.', scope: 'shared' }, contextFor('pike'))).toMatchObject({ level: 'DANGEROUS' });
    expect(await save.classify!({ content: 'Answer in English.' }, contextFor('pike'))).toMatchObject({ level: 'SAFE' });
    // Approved by the requester themself: kept in this conversation, and the model is told how it gets shared.
    const selfApproved = await save.execute({ content: 'Answer in English.', scope: 'shared' }, contextFor('pike', { approvedBy: 'slack:U1' }));
    expect(selfApproved.output).toMatch(/not shared: only an admin's approval shares/);
    expect(await memory.list(SHARED_MEMORY_SCOPE)).toEqual([]);
    expect((await memory.list(SCOPE)).map((fact) => fact.content)).toEqual(['Answer in English.']);
    await save.execute({ content: 'Releases are tagged vX.Y.Z.', scope: 'shared' }, contextFor('pike', { approvedBy: ADMIN }));
    expect((await memory.list(SHARED_MEMORY_SCOPE)).map((fact) => fact.content)).toEqual(['Releases are tagged vX.Y.Z.']);
    // Every channel sees a shared fact.
    const recalled = await tool(tools, 'recall_memory').execute({ query: 'releases tagged' }, contextFor('worf', { scope: OTHER_CHANNEL }));
    expect(recalled.output).toContain('Releases are tagged vX.Y.Z.');
    expect(recalled.output).toContain('shared');
  });

  it("never shows, changes or forgets another channel's fact, and changes a fact only for its author or an admin", async () => {
    const { memory, tools, contextFor } = await setup();
    const { fact: elsewhere } = await memory.save({ content: 'The vault code is 4711.', scope: OTHER_CHANNEL, author: 'geordi', savedBy: 'slack:U1' });
    const recalled = await tool(tools, 'recall_memory').execute({ query: 'vault code' }, contextFor('worf'));
    expect(recalled.output).not.toContain('4711');
    for (const [name, input] of [
      ['forget_memory', { id: elsewhere.id }],
      ['update_memory', { id: elsewhere.id, pinned: true }],
    ] as const) {
      await expect(tool(tools, name).execute(input, contextFor('worf')), name).rejects.toThrow(/No memory has the id/);
    }
    expect(await memory.get(elsewhere.id)).toMatchObject({ pinned: false });

    const { fact: mine } = await memory.save({ content: 'Staging is at staging.internal.', scope: SCOPE, author: 'geordi', savedBy: 'slack:U1' });
    await expect(tool(tools, 'forget_memory').execute({ id: mine.id }, contextFor('worf', { user: 'slack:U2' }))).rejects.toThrow(
      /Only the person who saved .* or an admin/,
    );
    await expect(tool(tools, 'update_memory').execute({ id: mine.id, content: 'Staging is gone.' }, contextFor('worf', { user: 'slack:U2' }))).rejects.toThrow(
      /Only the person who saved/,
    );
    expect(await memory.get(mine.id)).toMatchObject({ content: 'Staging is at staging.internal.' });
    expect((await tool(tools, 'forget_memory').execute({ id: mine.id }, contextFor('worf', { user: ADMIN }))).output).toContain(`Forgot ${mine.id}`);
  });

  it('updates and forgets by id, and says so when the id is unknown', async () => {
    const { memory, tools, contextFor } = await setup();
    const { fact } = await memory.save({ content: 'Port 8080 serves the API.', scope: SCOPE, author: 'geordi', savedBy: 'slack:U1' });
    const updated = await tool(tools, 'update_memory').execute({ id: fact.id, content: 'Port 9090 serves the API.', pinned: true }, contextFor('data'));
    expect(updated.output).toContain('Port 9090');
    expect(await memory.get(fact.id)).toMatchObject({ content: 'Port 9090 serves the API.', pinned: true });
    expect((await tool(tools, 'forget_memory').execute({ id: fact.id }, contextFor('data'))).output).toContain(`Forgot ${fact.id}`);
    await expect(tool(tools, 'forget_memory').execute({ id: fact.id }, contextFor('data'))).rejects.toBeInstanceOf(ToolFailureError);
    await expect(tool(tools, 'update_memory').execute({ id: 'nope' }, contextFor('data'))).rejects.toThrow(/recall_memory/);
  });

  it('fails clearly when the run has no memory service', async () => {
    const { tools, contextFor } = await setup();
    const context = { ...contextFor('geordi'), services: {} };
    await expect(tool(tools, 'recall_memory').execute({}, context)).rejects.toThrow(/Memory is not available/);
  });
});
