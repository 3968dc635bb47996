/** An in-test ToolRegistry: a few fake tools, validated by hand against their tiny JSON schemas. */
import { ToolInputError } from '../../../../src/core/errors.js';
import type { ToolDefinition } from '../../../../src/core/model/language-model.js';
import type { CallRisk, ModelTier, ToolContext, ToolImplementation, ToolRegistry, ToolResult, ToolSchema } from '../../../../src/core/tools/tool.js';

export interface FakeTool {
  schema: ToolSchema;
  implementation: ToolImplementation;
}

const TIER_RANK: Record<ModelTier, number> = { SMALL: 0, MEDIUM: 1, LARGE: 2 };

type PropertySpec = { type?: string };

function checkType(value: unknown, type: string | undefined): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

export function createFakeToolRegistry(fakeTools: FakeTool[]): ToolRegistry & { executed: { name: string; input: Record<string, unknown> }[] } {
  const byName = new Map(fakeTools.map((tool) => [tool.schema.name, tool]));
  const executed: { name: string; input: Record<string, unknown> }[] = [];
  const get = (name: string): FakeTool => {
    const tool = byName.get(name);
    if (!tool) throw new ToolInputError(name, `Unknown tool ${name}.`);
    return tool;
  };
  return {
    executed,
    has: (name) => byName.has(name),
    schema: (name) => byName.get(name)?.schema,
    names: () => [...byName.keys()],
    definitionsFor(names: Iterable<string>, tier: ModelTier): ToolDefinition[] {
      return [...names].flatMap((name) => {
        const tool = byName.get(name);
        if (!tool || TIER_RANK[tool.schema.requiredTier] > TIER_RANK[tier]) return [];
        const { description, parameters } = tool.schema;
        return [{ name, description, parameters }];
      });
    },
    validate(name, input) {
      const { schema } = get(name);
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        throw new ToolInputError(name, `${name}: the arguments must be an object.`);
      }
      const properties = (schema.parameters['properties'] ?? {}) as Record<string, PropertySpec>;
      const required = (schema.parameters['required'] ?? []) as string[];
      const record = input as Record<string, unknown>;
      for (const key of required) {
        if (!(key in record)) throw new ToolInputError(name, `${name}: "${key}" is required.`);
      }
      for (const [key, value] of Object.entries(record)) {
        const spec = properties[key];
        if (!spec) throw new ToolInputError(name, `${name}: unknown parameter "${key}".`);
        if (!checkType(value, spec.type)) throw new ToolInputError(name, `${name}: "${key}" must be a ${spec.type}.`);
      }
      return record;
    },
    async classify(name, input, context): Promise<CallRisk> {
      const tool = get(name);
      if (tool.implementation.classify) return tool.implementation.classify(input, context);
      return { level: tool.schema.riskLevel, reason: `${name} is ${tool.schema.riskLevel}` };
    },
    async preview(name, input, context) {
      return get(name).implementation.preview(input, context);
    },
    async execute(name, input, context: ToolContext): Promise<ToolResult> {
      executed.push({ name, input });
      try {
        const result = await get(name).implementation.execute(input, context);
        return { ...result, output: context.maskSecrets(result.output) };
      } catch (error) {
        return { output: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true };
      }
    },
  };
}

/** A fake tool with a string-parameter schema and the given behaviour. */
export function fakeTool(
  name: string,
  options: {
    riskLevel?: ToolSchema['riskLevel'];
    requiredTier?: ModelTier;
    properties?: Record<string, { type: string; description?: string }>;
    required?: string[];
    execute?: (input: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;
  } = {},
): FakeTool {
  return {
    schema: {
      name,
      description: `The ${name} tool.`,
      parameters: { type: 'object', properties: options.properties ?? {}, required: options.required ?? [] },
      riskLevel: options.riskLevel ?? 'SAFE',
      requiredTier: options.requiredTier ?? 'SMALL',
    },
    implementation: {
      name,
      preview: (input) => ({ summary: `${name} ${Object.values(input).join(' ')}`.trim(), details: [`details of ${name}`] }),
      execute: options.execute ?? (async () => ({ output: `${name} done` })),
    },
  };
}
