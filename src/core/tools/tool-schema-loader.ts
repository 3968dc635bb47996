import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DataFileError } from '../errors.js';
import { ownValidator, type OwnSchema } from '../validation/own-validator.js';
import type { ToolSchema } from './tool.js';

const addFormats = addFormatsModule.default;
/** `tool-schema.schema.json` beside this module: the shape of a tools_schemas/ file (precompiled in the build). */
export const TOOL_SCHEMA_FILE_SCHEMA: OwnSchema = {
  id: 'toolSchemaFile',
  options: { allErrors: true, strict: false },
  load: () => JSON.parse(readFileSync(new URL('./tool-schema.schema.json', import.meta.url), 'utf8')) as object,
};

type Problem = { file: string; field: string; message: string };

/**
 * Reads every `<directory>/*.json`, checks it against `tool-schema.schema.json` (and that `name`
 * matches the file name), and compiles `parameters` with ajv to prove it is a usable schema.
 * All problems of all files are reported together in one `DataFileError`. With `schemaChecked` (these
 * very files passed before: the caller compared a fingerprint of their bytes) nothing is compiled.
 */
export async function loadToolSchemas(directory: string, options: { schemaChecked?: boolean } = {}): Promise<Map<string, ToolSchema>> {
  let fileNames: string[];
  try {
    fileNames = (await readdir(directory)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new DataFileError([{ file: directory, field: '(folder)', message: `cannot read the tool schema folder: ${describe(error)}` }], { cause: error });
  }
  const checked = options.schemaChecked === true;
  const checkShape = checked ? undefined : ownValidator<ToolSchema>(TOOL_SCHEMA_FILE_SCHEMA);
  const compiler = checked ? undefined : addFormats(new Ajv({ allErrors: true, strict: false }));

  const schemas = new Map<string, ToolSchema>();
  const problems: Problem[] = [];
  for (const fileName of fileNames) {
    const file = join(directory, fileName);
    const expectedName = basename(fileName, '.json');
    let content: unknown;
    try {
      content = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      problems.push({ file, field: '(file)', message: `not valid JSON: ${describe(error)}` });
      continue;
    }
    if (checkShape && !checkShape(content)) {
      problems.push(...(checkShape.errors ?? []).map((error) => toProblem(file, error)));
      continue;
    }
    if (!isToolSchemaShape(content)) {
      problems.push({ file, field: '(root)', message: 'is not a tool schema' });
      continue;
    }
    if (content.name !== expectedName) {
      problems.push({ file, field: 'name', message: `must equal the file name "${expectedName}" (found "${content.name}")` });
      continue;
    }
    try {
      compiler?.compile(content.parameters);
    } catch (error) {
      problems.push({ file, field: 'parameters', message: `is not a valid JSON Schema: ${describe(error)}` });
      continue;
    }
    const { name, description, parameters, riskLevel, requiredTier } = content;
    schemas.set(name, { name, description, parameters, riskLevel, requiredTier });
  }
  if (problems.length > 0) throw new DataFileError(problems);
  return schemas;
}

/** The fields this loader reads are there (the full shape is the meta-schema's job). */
function isToolSchemaShape(content: unknown): content is ToolSchema {
  return (
    typeof content === 'object' &&
    content !== null &&
    typeof (content as { name?: unknown }).name === 'string' &&
    typeof (content as { parameters?: unknown }).parameters === 'object'
  );
}

function toProblem(file: string, error: ErrorObject): Problem {
  const path = error.instancePath.split('/').filter(Boolean).join('.');
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
    return { file, field: path ? `${path}.${missing}` : missing, message: 'is required' };
  }
  if (error.keyword === 'additionalProperties') {
    const extra = String((error.params as { additionalProperty?: unknown }).additionalProperty);
    return { file, field: path ? `${path}.${extra}` : extra, message: 'is not a known field' };
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return { file, field: path || '(root)', message: `must be one of ${allowed.join(', ')}` };
  }
  if (error.keyword === 'pattern' && path === 'description') return { file, field: path, message: 'must not be empty' };
  return { file, field: path || '(root)', message: error.message ?? 'is invalid' };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
