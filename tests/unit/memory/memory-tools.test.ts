import { Ajv } from 'ajv';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/logger.js';
import { GLOBAL_MEMORY_SCOPE } from '../../../src/core/memory/memory-fact.js';
import { createMemoryStore, type MemoryStore } from '../../../src/core/memory/memory-store.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { memoryToolImplementations } from '../../../src/core/tools/impl/memory-tools.js';
import type { ToolContext, ToolImplementation, ToolSchema } from '../../../src/core/tools/tool.js';
import { ToolFailureError } from '../../../src/core/tools/tool-failure-error.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';

const WORKSPACE = '/srv/project-a';
const TOOL_NAMES = ['save_memory', 'recall_memory', 'update_memory', 'forget_memory'];
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function setup(): Promise<{ memory: MemoryStore; tools: Map<string, ToolImplementation>; contextFor: (agent: string) => ToolContext }> {
  const store = await openStore({ url: 'memory', dataDirectory: '/unused' });
  opened.push(store);
  const memory = createMemoryStore({ store });
  const tools = new Map(memoryToolImplementations().map((tool) => [tool.name, tool]));
  const contextFor = (agentName: string): ToolContext => ({
    workspace: { root: WORKSPACE, resolve: async (path) => path, relative: (path) => path },
    signal: new AbortController().signal,
    childEnv: {},
    sandbox: createFallbackSandbox(),
    maskSecrets: (text) => text,
    runId: 'run-1',
    agentName,
    logger: silentLogger,
    services: { memory, memoryScope: WORKSPACE },
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
    expect(save({ content: 'x', kind: 'decision', global: true })).toBe(true);
    expect(save({ content: 'x', kind: 'opinion' })).toBe(false);
    expect(save({})).toBe(false);
    expect([...memoryToolImplementations().map((implementation) => implementation.name)].sort()).toEqual([...TOOL_NAMES].sort());
  });

  it('saves under the calling agent and the workspace scope, and another agent recalls it', async () => {
    const { memory, tools, contextFor } = await setup();
    const saved = await tool(tools, 'save_memory').execute({ content: 'The build uses Bazel 7.', kind: 'lesson' }, contextFor('geordi'));
    expect(saved.output).toMatch(/^Saved [0-9a-f]{6}-[0-9a-f]{8} to workspace memory/);
    const [fact] = await memory.list(WORKSPACE);
    expect(fact).toMatchObject({ author: 'geordi', kind: 'lesson', scope: WORKSPACE });
    const recalled = await tool(tools, 'recall_memory').execute({ query: 'bazel build' }, contextFor('worf'));
    expect(recalled.output).toContain(fact!.id);
    expect(recalled.output).toContain('The build uses Bazel 7.');
    expect(recalled.display).toBe('1 fact');
    const again = await tool(tools, 'save_memory').execute({ content: 'the build uses bazel 7' }, contextFor('spock'));
    expect(again.output).toContain('merged');
  });

  it('saves to global memory on request', async () => {
    const { memory, tools, contextFor } = await setup();
    await tool(tools, 'save_memory').execute({ content: 'Answer in English.', global: true }, contextFor('pike'));
    expect((await memory.list(GLOBAL_MEMORY_SCOPE)).map((fact) => fact.content)).toEqual(['Answer in English.']);
    expect(await memory.list(WORKSPACE)).toEqual([]);
  });

  it('updates and forgets by id, and says so when the id is unknown', async () => {
    const { memory, tools, contextFor } = await setup();
    const { fact } = await memory.save({ content: 'Port 8080 serves the API.', scope: WORKSPACE, author: 'geordi' });
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
