import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/core/errors.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';

const valid = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  riskLevel: 'SAFE',
  requiredTier: 'SMALL',
};

describe('loadToolSchemas', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(os.tmpdir(), 'tsuka-schemas-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const write = (file: string, content: unknown): Promise<void> =>
    writeFile(join(directory, file), typeof content === 'string' ? content : JSON.stringify(content));

  async function problemsOf(): Promise<{ file: string; field: string; message: string }[]> {
    const error = await loadToolSchemas(directory).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DataFileError);
    return [...(error as DataFileError).problems];
  }

  it('loads a valid schema keyed by name', async () => {
    await write('read_file.json', valid);
    const schemas = await loadToolSchemas(directory);
    expect([...schemas.keys()]).toEqual(['read_file']);
    expect(schemas.get('read_file')?.riskLevel).toBe('SAFE');
  });

  it('reports a missing field and a bad enum with the file and field', async () => {
    const { riskLevel: _dropped, ...withoutRisk } = valid;
    await write('read_file.json', withoutRisk);
    await write('list_dir.json', { ...valid, name: 'list_dir', requiredTier: 'HUGE' });
    const problems = await problemsOf();
    expect(problems).toContainEqual({ file: join(directory, 'read_file.json'), field: 'riskLevel', message: 'is required' });
    expect(problems).toContainEqual(
      expect.objectContaining({ file: join(directory, 'list_dir.json'), field: 'requiredTier', message: expect.stringContaining('SMALL, MEDIUM, LARGE') }),
    );
  });

  it('rejects a name that differs from the file name, an empty description and a non-object parameters schema', async () => {
    await write('grep_search.json', { ...valid, name: 'grep' });
    await write('list_dir.json', { ...valid, name: 'list_dir', description: '  ' });
    await write('write_file.json', { ...valid, name: 'write_file', parameters: { type: 'array' } });
    const problems = await problemsOf();
    expect(problems.map((problem) => `${problem.file.split('/').pop()} ${problem.field}`)).toEqual(
      expect.arrayContaining(['grep_search.json name', 'list_dir.json description', 'write_file.json parameters.type']),
    );
  });

  it('compiles parameters with ajv and reports an invalid JSON Schema', async () => {
    await write('read_file.json', { ...valid, parameters: { type: 'object', properties: { path: { type: 'strng' } } } });
    const [problem] = await problemsOf();
    expect(problem).toMatchObject({ file: join(directory, 'read_file.json'), field: 'parameters' });
    expect(problem?.message).toMatch(/not a valid JSON Schema/);
  });

  it('reports a file that is not JSON, together with the other problems', async () => {
    await write('read_file.json', '{ "name": ');
    await write('list_dir.json', { ...valid, name: 'list_dir', riskLevel: 'MAYBE' });
    const problems = await problemsOf();
    expect(problems).toHaveLength(2);
    expect(problems[1]).toMatchObject({ field: '(file)', message: expect.stringContaining('not valid JSON') });
  });
});
