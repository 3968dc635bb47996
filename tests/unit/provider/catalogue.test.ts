import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataFileError } from '../../../src/core/errors.js';
import { loadProviderCatalogue } from '../../../src/core/provider/catalogue.js';

const repositoryCatalogue = path.resolve(import.meta.dirname, '../../../providers.json');
let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-catalogue-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function loadText(text: string): Promise<unknown> {
  const file = path.join(directory, 'providers.json');
  await writeFile(file, text);
  return loadProviderCatalogue(file).catch((error: unknown) => error);
}

describe('provider catalogue', () => {
  it('loads the shipped providers.json with the five known providers', async () => {
    const catalogue = await loadProviderCatalogue(repositoryCatalogue);
    expect(catalogue.map((entry) => [entry.id, entry.class, entry.baseURL])).toEqual([
      ['ollama', 'LOCAL', 'http://127.0.0.1:11434/v1'],
      ['llama-cpp', 'LOCAL', 'http://127.0.0.1:8080/v1'],
      ['lm-studio', 'LOCAL', 'http://127.0.0.1:1234/v1'],
      ['vllm', 'LOCAL', 'http://127.0.0.1:8000/v1'],
      ['openrouter', 'CLOUD', 'https://openrouter.ai/api/v1'],
    ]);
    expect(catalogue.find((entry) => entry.id === 'openrouter')?.apiKeyEnv).toBe('OPENROUTER_API_KEY');
  });

  it('names the file and the field of every problem in a broken entry', async () => {
    const file = path.join(directory, 'providers.json');
    const error = await loadText(
      JSON.stringify([
        { id: 'ok', displayName: 'OK', class: 'LOCAL', kind: 'ollama', baseURL: 'http://127.0.0.1:1/v1', defaultModel: 'm' },
        { id: 'bad', displayName: 'Bad', class: 'ONPREM', kind: 'ollama', baseURL: 'localhost:1234', defaultModel: 'm', extra: 1 },
      ]),
    );
    expect(error).toBeInstanceOf(DataFileError);
    const problems = (error as DataFileError).problems;
    expect(problems.every((problem) => problem.file === file)).toBe(true);
    expect(problems.map((problem) => problem.field).sort()).toEqual(['/1/baseURL', '/1/class', '/1/extra']);
    expect(problems.find((problem) => problem.field === '/1/class')?.message).toContain('LOCAL, CLOUD');
  });

  it('reports a missing required field and a duplicate id', async () => {
    const entry = { id: 'dup', displayName: 'D', class: 'LOCAL', kind: 'vllm', baseURL: 'http://127.0.0.1:1/v1', defaultModel: 'm' };
    const missing = (await loadText(JSON.stringify([{ ...entry, defaultModel: undefined }]))) as DataFileError;
    expect(missing.problems).toEqual([expect.objectContaining({ field: '/0/defaultModel', message: 'is required.' })]);
    const duplicate = (await loadText(JSON.stringify([entry, entry]))) as DataFileError;
    expect(duplicate.problems).toEqual([expect.objectContaining({ field: '/1/id' })]);
  });

  it('reports unreadable JSON as a DataFileError with the cause kept', async () => {
    const error = await loadText('[{"id": ');
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as DataFileError).cause).toBeInstanceOf(SyntaxError);
  });
});
