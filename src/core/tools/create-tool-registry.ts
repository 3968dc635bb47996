import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ToolInputError, TsukaError, toTsukaError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import type { ToolDefinition } from '../model/language-model.js';
import type { CallPreview, CallRisk, ModelTier, ToolContext, ToolImplementation, ToolRegistry, ToolResult, ToolSchema } from './tool.js';
import { describeInputErrors } from './tool-input-message.js';
import { outgoingSecretRisk } from './outgoing-secrets.js';
import { networkSourceLabel, untrustedOutgoingRisk, untrustedSources, withOutgoingLine } from './untrusted-calls.js';

const addFormats = addFormatsModule.default;
const TIER_RANK: Record<ModelTier, number> = { SMALL: 0, MEDIUM: 1, LARGE: 2 };

/**
 * An implementation of any input type. The generic is erased here on purpose: the registry
 * validates every input against the tool's schema before the implementation sees it.
 */
// biome-ignore lint/suspicious/noExplicitAny: implementations of different input types live in one registry; each input is validated by its schema before it reaches them.
export type AnyToolImplementation = ToolImplementation<any>;

export interface ToolRegistryOptions {
  schemas: Map<string, ToolSchema>;
  implementations: readonly AnyToolImplementation[];
  /** Tools switched off by configuration (e.g. `create_tool`): their schemas are ignored. */
  disabledTools?: Iterable<string>;
  logger?: Logger;
}

/**
 * Joins schemas and implementations (a missing half on either side fails at creation),
 * compiles one validator per tool, and runs tools so that errors become results and every
 * output is masked.
 */
export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const logger = options.logger ?? silentLogger;
  const disabled = new Set(options.disabledTools ?? []);
  const schemas = new Map([...options.schemas].filter(([name]) => !disabled.has(name)));
  const implementations = joinImplementations(schemas, options.implementations);

  // Compiled at a tool's first call: start-up pays for no tool a run never uses (the loader already
  // proved every schema compiles), nor for ajv's set-up when no tool is called.
  let ajv: Ajv | undefined;
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (name: string, schema: ToolSchema): ValidateFunction => {
    let validator = validators.get(name);
    if (!validator) {
      ajv ??= addFormats(new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false }));
      validator = ajv.compile(schema.parameters);
      validators.set(name, validator);
    }
    return validator;
  };
  const names = [...schemas.keys()].sort();

  const requireTool = (name: string): { schema: ToolSchema; implementation: AnyToolImplementation } => {
    const schema = schemas.get(name);
    const implementation = implementations.get(name);
    if (!schema || !implementation) {
      throw new ToolInputError(name, `Unknown tool "${name}". Tools that exist: ${names.join(', ')}.`);
    }
    return { schema, implementation };
  };

  return {
    has: (name) => schemas.has(name),
    schema: (name) => schemas.get(name),
    names: () => [...names],

    definitionsFor(requested: Iterable<string>, tier: ModelTier): ToolDefinition[] {
      const definitions: ToolDefinition[] = [];
      for (const name of new Set(requested)) {
        const schema = schemas.get(name);
        if (!schema || TIER_RANK[schema.requiredTier] > TIER_RANK[tier]) continue;
        definitions.push({ name, description: schema.description, parameters: schema.parameters });
      }
      return definitions;
    },

    validate(name: string, input: unknown): Record<string, unknown> {
      const { schema } = requireTool(name);
      const validator = validatorFor(name, schema);
      // A copy, because useDefaults fills defaults in place and the caller's object is the model's.
      let candidate: unknown;
      try {
        candidate = input === undefined ? {} : structuredClone(input);
      } catch (error) {
        throw new ToolInputError(name, `Invalid arguments for ${name}: they are not plain JSON data.`, { cause: error });
      }
      if (!validator(candidate)) throw new ToolInputError(name, describeInputErrors(schema, validator.errors ?? [], candidate));
      return candidate as Record<string, unknown>;
    },

    async classify(name: string, input: Record<string, unknown>, context: ToolContext): Promise<CallRisk> {
      const { schema, implementation } = requireTool(name);
      try {
        // Before the tool's own risk: a call that would send a secret out asks, whatever the tool says.
        const leak = implementation.outgoing ? outgoingSecretRisk(implementation.outgoing(input), context) : undefined;
        if (leak) return leak;
        const risk = implementation.classify
          ? await implementation.classify(input, context)
          : { level: schema.riskLevel, reason: `${name} is ${schema.riskLevel} by its schema` };
        // A turn that has read untrusted text: what a network call sends could come from there (issue 41).
        return implementation.outgoing ? untrustedOutgoingRisk(risk, untrustedSources(context)) : risk;
      } catch (error) {
        // Fail closed: if the risk cannot be worked out, a person decides.
        logger.warn('tool classify failed', { tool: name, error: describeError(error) });
        return { level: 'DANGEROUS', reason: `the risk could not be determined (${describeError(error)})` };
      }
    },

    async preview(name: string, input: Record<string, unknown>, context: ToolContext): Promise<CallPreview> {
      const { implementation } = requireTool(name);
      let preview: CallPreview;
      try {
        preview = withOutgoingLine(await implementation.preview(input, context), implementation.outgoing?.(input), context);
      } catch (error) {
        logger.warn('tool preview failed', { tool: name, error: describeError(error) });
        preview = { summary: name, details: [`(no preview: ${describeError(error)})`] };
      }
      return {
        summary: context.maskSecrets(preview.summary),
        ...(preview.details ? { details: preview.details.map((line) => context.maskSecrets(line)) } : {}),
      };
    },

    async execute(name: string, input: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      const network = implementations.get(name)?.outgoing !== undefined;
      let result: ToolResult;
      try {
        const { implementation } = requireTool(name);
        result = await implementation.execute(input, context);
      } catch (error) {
        const wrapped = toTsukaError(error, `${name} failed.`);
        if (!(error instanceof TsukaError)) {
          logger.error('tool failed unexpectedly', { tool: name, error: wrapped.message, stack: error instanceof Error ? error.stack : undefined });
        }
        result = { output: `Error: ${wrapped.message}`, isError: true, display: 'error' };
      }
      return {
        ...result,
        output: context.maskSecrets(result.output),
        ...(result.display !== undefined ? { display: context.maskSecrets(result.display) } : {}),
        // What a network tool brought in is untrusted text: the loop fences it and marks the turn.
        ...(network ? { untrusted: networkSourceLabel(name) } : {}),
      };
    },
  };
}

/** The implementations by name; a missing half on either side, or a name implemented twice, fails. */
function joinImplementations(schemas: ReadonlyMap<string, ToolSchema>, given: readonly AnyToolImplementation[]): Map<string, AnyToolImplementation> {
  const implementations = new Map<string, AnyToolImplementation>();
  const duplicates: string[] = [];
  for (const implementation of given) {
    if (implementations.has(implementation.name)) duplicates.push(implementation.name);
    implementations.set(implementation.name, implementation);
  }
  const withoutImplementation = [...schemas.keys()].filter((name) => !implementations.has(name));
  const withoutSchema = [...implementations.keys()].filter((name) => !schemas.has(name));
  const mismatches = [
    duplicates.length > 0 ? `implemented twice: ${duplicates.join(', ')}` : '',
    withoutImplementation.length > 0 ? `schemas without an implementation: ${withoutImplementation.join(', ')}` : '',
    withoutSchema.length > 0 ? `implementations without a schema: ${withoutSchema.join(', ')}` : '',
  ].filter(Boolean);
  if (mismatches.length > 0) {
    throw new TsukaError('tool_registry_invalid', `The tool registry does not line up: ${mismatches.join('; ')}.`);
  }
  return implementations;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
