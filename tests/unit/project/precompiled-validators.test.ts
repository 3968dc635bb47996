/**
 * The bundle validates our own files with validators precompiled at build time (ajv standalone code,
 * scripts/precompile-validators.mjs); the sources compile the same schemas at run time. Both must
 * give the same verdict and the same errors, on the shipped files and on broken variants of them.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without types (build scripts)
import { precompiledValidators } from '../../../scripts/bundle.mjs';
// @ts-expect-error: plain JavaScript without types (build scripts)
import { OWN_SCHEMA_EXPORTS, ownSchemas } from '../../../scripts/precompile-validators.mjs';
import type { OwnSchema } from '../../../src/core/validation/own-validator.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'src');
const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
const folder = (name: string): unknown[] =>
  readdirSync(path.join(ROOT, name))
    .filter((file) => file.endsWith('.json'))
    .map((file) => readJson(path.join(name, file)));

/** Valid documents for each schema; their broken variants are made below. */
const SAMPLES: Record<string, () => unknown[]> = {
  roleFile: () => folder('roles'),
  traitFile: () => folder('traits'),
  characterFile: () => folder('characters'),
  teamFile: () => folder('teams'),
  toolSchemaFile: () => folder('tools_schemas'),
  providersFile: () => [readJson('providers.json')],
  configFile: () => [{ llmBaseUrl: ['http://127.0.0.1:8080/v1'], httpPort: 3000, effort: 'low', sandbox: 'auto', plainMentions: true }],
  approvalPolicy: () => [
    {
      groups: { ops: { slackUsergroup: 'S0OPS' } },
      rules: [{ name: 'k', workspace: 'slack:T1', command: 'kubectl *', approval: { group: 'ops', required: 2 } }],
      default: { approval: 'channel' },
    },
    { groups: { leads: { members: ['slack:U1'] } }, rules: [{ name: 'status', tool: 'write_*', approval: 'none' }], default: { approval: { group: 'leads' } } },
  ],
  mcpConfigFile: () => [
    { mcpServers: { files: { command: 'npx', args: ['server'], risk: { read: 'SAFE' } }, web: { url: 'https://mcp.example/mcp', timeoutS: 5 } } },
  ],
  mcpStdioServer: () => [{ command: 'npx', args: ['server'], env: { A: 'b' }, sandbox: false }],
  mcpHttpServer: () => [{ url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer x' } }],
};

/** The document itself, and each field (two levels deep) removed, of the wrong type, or joined by an unknown one. */
function variants(value: unknown, depth = 2): unknown[] {
  if (depth === 0 || typeof value !== 'object' || value === null) return [value];
  const result: unknown[] = [value, 12345, 'text', null];
  if (Array.isArray(value)) {
    result.push([], [1], ...variants(value[0], depth - 1).map((first) => [first, ...value.slice(1)]));
    return result;
  }
  const record = value as Record<string, unknown>;
  result.push({ ...record, notAField: true });
  for (const [key, field] of Object.entries(record)) {
    const { [key]: _removed, ...without } = record;
    result.push(without, ...[12345, 'text', [], {}, true, ...variants(field, depth - 1).slice(4)].map((changed) => ({ ...record, [key]: changed })));
  }
  return result;
}

let workspace: string;
let precompiled: Record<string, ValidateFunction>;
let schemas: OwnSchema[];

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'tsuka-precompiled-'));
  const outfile = path.join(workspace, 'validators.mjs');
  const result = await build({
    stdin: { contents: "export { PRECOMPILED_VALIDATORS } from './src/core/validation/precompiled-validators.ts';", resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    outfile,
    plugins: [precompiledValidators(ROOT)],
    logLevel: 'silent',
  });
  writeFileSync(outfile, result.outputFiles[0]!.text);
  precompiled = ((await import(pathToFileURL(outfile).href)) as { PRECOMPILED_VALIDATORS: Record<string, ValidateFunction> }).PRECOMPILED_VALIDATORS;
  schemas = (await ownSchemas(ROOT)) as OwnSchema[];
}, 60_000);
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('precompiled validators', () => {
  it('cover every schema a module declares as an OwnSchema, each with samples here', () => {
    const declaring = (directory: string): string[] =>
      readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
        const file = path.join(directory, entry.name);
        if (entry.isDirectory()) return declaring(file);
        return entry.name.endsWith('.ts') && /\bOwnSchema\b[>,]|:\s*OwnSchema\b/.test(readFileSync(file, 'utf8')) ? [file] : [];
      });
    const modules = declaring(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => file !== 'core/validation/own-validator.ts');
    expect(modules.sort()).toEqual(Object.keys(OWN_SCHEMA_EXPORTS).sort());
    expect(Object.keys(precompiled).sort()).toEqual(schemas.map((schema) => schema.id).sort());
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(precompiled).sort());
  });

  it('give the verdict and the errors of ajv compiling the same schema at run time', () => {
    for (const schema of schemas) {
      const compiled = new Ajv(schema.options).compile(schema.load());
      const ahead = precompiled[schema.id]!;
      let invalid = 0;
      for (const sample of SAMPLES[schema.id]!()) {
        expect(compiled(sample), `${schema.id}: a shipped or sample file is valid`).toBe(true);
        for (const variant of variants(sample)) {
          const verdict = compiled(variant);
          expect(ahead(variant), schema.id).toBe(verdict);
          expect(ahead.errors ?? null, schema.id).toEqual(compiled.errors ?? null);
          if (!verdict) invalid += 1;
        }
      }
      expect(invalid, `${schema.id}: broken variants were tried`).toBeGreaterThan(5);
    }
  });
});
