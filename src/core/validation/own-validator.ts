/**
 * Validators of TSUKA's own JSON Schemas (roster files, tool-schema files, the provider catalogue,
 * tsuka.config.json). `npm run build` compiles them ahead of time into the bundle
 * (scripts/precompile-validators.mjs stands in for `precompiled-validators.ts`), so a start compiles
 * none of them; from the sources ajv compiles each one the first time it is asked for. Either way it
 * is the same schema with the same ajv options.
 */
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { PRECOMPILED_VALIDATORS } from './precompiled-validators.js';

/** One of our own schemas, as its module declares it. */
export interface OwnSchema {
  /** A JavaScript identifier, unique among our schemas: the name of the precompiled validator. */
  id: string;
  options: Options;
  /** The schema itself (read only when it has to be compiled at run time). */
  load(): object;
}

const compiled = new Map<string, ValidateFunction>();
/** One ajv per set of options: each compiles the JSON Schema meta-schema once, not once per schema. */
const compilers = new Map<string, Ajv>();

/** The validator of `schema`: precompiled when the build made one, else compiled once per process. */
export function ownValidator<T>(schema: OwnSchema): ValidateFunction<T> {
  let validator = PRECOMPILED_VALIDATORS[schema.id] ?? compiled.get(schema.id);
  if (!validator) {
    const key = JSON.stringify(schema.options);
    const compiler = compilers.get(key) ?? new Ajv(schema.options);
    compilers.set(key, compiler);
    validator = compiler.compile(schema.load());
    compiled.set(schema.id, validator);
  }
  return validator as ValidateFunction<T>;
}
