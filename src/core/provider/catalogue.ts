/**
 * The provider catalogue (`providers.json`): which model servers discovery knows, as data. Validated
 * against `providers.schema.json` beside this module; every problem names the file and the field.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ownValidator, type OwnSchema } from '../validation/own-validator.js';
import { DataFileError } from '../errors.js';

/** The server software behind an entry; decides which extra probes discovery makes. */
export type ProviderKind = 'ollama' | 'llama-cpp' | 'lm-studio' | 'vllm' | 'openai';

/** One catalogue entry. */
export interface ProviderEntry {
  id: string;
  displayName: string;
  /** LOCAL servers are probed at start; CLOUD ones only when their API key is set. */
  class: 'LOCAL' | 'CLOUD';
  /** Base URL including the API root (`/v1`). */
  baseURL: string;
  defaultModel: string;
  /** Name of the environment variable that holds the key, e.g. `OPENROUTER_API_KEY`. */
  apiKeyEnv?: string;
  kind: ProviderKind;
}

type Problem = DataFileError['problems'][number];

/** `providers.schema.json` beside this module, as ajv compiles it (precompiled in the build: `own-validator.ts`). */
export const PROVIDERS_SCHEMA: OwnSchema = {
  id: 'providersFile',
  options: { allErrors: true, strict: true, verbose: true },
  load: () => JSON.parse(readFileSync(new URL('./providers.schema.json', import.meta.url), 'utf8')) as object,
};

/** Reads and validates the catalogue; throws `DataFileError` listing every problem. */
export async function loadProviderCatalogue(filePath: string): Promise<ProviderEntry[]> {
  let text: string;
  try {
    text = await readFile(filePath, 'utf8');
  } catch (error) {
    throw new DataFileError([{ file: filePath, field: '/', message: `The file cannot be read: ${describe(error)}` }], { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new DataFileError([{ file: filePath, field: '/', message: `The file is not valid JSON: ${describe(error)}` }], { cause: error });
  }
  return validateProviderCatalogue(value, filePath, ownValidator<ProviderEntry[]>(PROVIDERS_SCHEMA));
}

function validateProviderCatalogue(value: unknown, file: string, validate: ValidateFunction<ProviderEntry[]>): ProviderEntry[] {
  if (!validate(value)) throw new DataFileError(schemaProblems(file, validate.errors));
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry, index) => {
    const first = seen.get(entry.id);
    if (first !== undefined) problems.push({ file, field: `/${index}/id`, message: `"${entry.id}" is already the id of entry ${first}.` });
    else seen.set(entry.id, index);
  });
  if (problems.length > 0) throw new DataFileError(problems);
  return value;
}

function schemaProblems(file: string, errors: readonly ErrorObject[] | null | undefined): Problem[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
    const hint = typeof description === 'string' ? ` (${description})` : '';
    switch (error.keyword) {
      case 'required':
        return { file, field: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required.' };
      case 'additionalProperties':
        return { file, field: `${error.instancePath}/${String(params.additionalProperty)}`, message: 'is not a known field.' };
      case 'enum':
        return { file, field: error.instancePath || '/', message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}.` };
      default:
        return { file, field: error.instancePath || '/', message: `${error.message ?? 'is invalid'}${hint}.` };
    }
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
