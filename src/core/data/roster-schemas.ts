import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ownValidator, type OwnSchema } from '../validation/own-validator.js';
import type { Character, Role, Team, Trait } from './types.js';
import type { DataProblem } from './data-problem.js';

/** The four kinds of roster file, each with its schema beside this module (`<kind>.schema.json`). */
export type RosterFileKind = 'role' | 'trait' | 'character' | 'team';

/** A file's shape is its type with the name optional (it comes from the file name) — and prompts may be arrays of lines. */
type FileOf<T extends { name: string }> = Omit<T, 'name'> & { name?: string };

/** Shape of a valid role file. */
export type RoleFile = FileOf<Omit<Role, 'systemPrompt'> & { systemPrompt: string | string[] }>;
/** Shape of a valid trait file. */
export type TraitFile = FileOf<Omit<Trait, 'stylePrompt'> & { stylePrompt: string | string[] }>;
/** Shape of a valid character file. */
export type CharacterFile = FileOf<Character>;
/** Shape of a valid team file. */
export type TeamFile = FileOf<Team>;

/** One compiled validator per file kind. */
export interface RosterValidators {
  role: ValidateFunction<RoleFile>;
  trait: ValidateFunction<TraitFile>;
  character: ValidateFunction<CharacterFile>;
  team: ValidateFunction<TeamFile>;
}

/** The roster schemas as ajv compiles them: beside this module, precompiled in the build (`own-validator.ts`). */
export const ROSTER_SCHEMAS: Record<RosterFileKind, OwnSchema> = {
  role: rosterSchema('role'),
  trait: rosterSchema('trait'),
  character: rosterSchema('character'),
  team: rosterSchema('team'),
};

function rosterSchema(kind: RosterFileKind): OwnSchema {
  return {
    id: `${kind}File`,
    options: { allErrors: true, strict: true, discriminator: true, verbose: true },
    load: () => JSON.parse(readFileSync(new URL(`./${kind}.schema.json`, import.meta.url), 'utf8')) as object,
  };
}

/** The four validators (precompiled in the build; compiled once per process from the sources). */
export function getRosterValidators(): RosterValidators {
  return {
    role: ownValidator<RoleFile>(ROSTER_SCHEMAS.role),
    trait: ownValidator<TraitFile>(ROSTER_SCHEMAS.trait),
    character: ownValidator<CharacterFile>(ROSTER_SCHEMAS.character),
    team: ownValidator<TeamFile>(ROSTER_SCHEMAS.team),
  };
}

/** Turns ajv's errors into one problem per real mistake, with the JSON pointer of the offending field. */
export function schemaProblems(file: string, errors: readonly ErrorObject[] | null | undefined): DataProblem[] {
  const all = errors ?? [];
  // Alternatives (anyOf) report every branch's failure; keep only the summary, worded from the schema's description.
  const alternatives = all.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/`);
  const problems: DataProblem[] = [];
  const seen = new Set<string>();
  for (const error of all) {
    if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    const problem = { file, ...describeError(error) };
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function describeError(error: ErrorObject): { field: string; message: string } {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const description = schemaDescription(error.parentSchema);
  switch (error.keyword) {
    case 'required':
      return { field: `${at}/${String(params.missingProperty)}`, message: 'is required.' };
    case 'additionalProperties':
      return { field: `${at}/${String(params.additionalProperty)}`, message: 'is not a known field.' };
    case 'enum':
      return { field: at || '/', message: `must be one of: ${formatList(params.allowedValues)}.` };
    case 'const':
      return { field: at || '/', message: `must be ${JSON.stringify(params.allowedValue)}.` };
    case 'discriminator':
      return {
        field: `${at}/${String(params.tag)}`,
        message: `must be one of: ${formatList(discriminatorValues(error.parentSchema))}.`,
      };
    case 'pattern':
    case 'anyOf':
      if (description) return { field: at || '/', message: `must be ${description}.` };
      break;
    default:
      break;
  }
  return { field: at || '/', message: `${error.message ?? 'is invalid'}.` };
}

function schemaDescription(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const description = (schema as { description?: unknown }).description;
  return typeof description === 'string' ? description : undefined;
}

function discriminatorValues(schema: unknown): unknown[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const branches = (schema as { oneOf?: unknown }).oneOf;
  if (!Array.isArray(branches)) return [];
  return branches.map((branch: unknown) => {
    const properties = (branch as { properties?: Record<string, { const?: unknown }> }).properties;
    return properties?.type?.const;
  });
}

function formatList(values: unknown): string {
  return Array.isArray(values) ? values.map((value) => String(value)).join(', ') : String(values);
}
