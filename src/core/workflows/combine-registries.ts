/** Joins two tool registries (the plain tools and the coordination tools) into one the agent loop can use. */
import type { ModelTier, ToolRegistry } from '../tools/tool.js';
import type { ToolDefinition } from '../model/language-model.js';
import { TsukaError } from '../errors.js';

/** `extra` wins for a name both have, so a workflow can shadow a plain tool. */
export function combineRegistries(base: ToolRegistry, extra: ToolRegistry): ToolRegistry {
  const owner = (name: string): ToolRegistry => (extra.has(name) ? extra : base);
  return {
    has: (name) => extra.has(name) || base.has(name),
    schema: (name) => owner(name).schema(name),
    names: () => [...new Set([...base.names(), ...extra.names()])].sort(),
    definitionsFor(names: Iterable<string>, tier: ModelTier): ToolDefinition[] {
      const wanted = [...new Set(names)];
      const fromExtra = new Map(
        extra
          .definitionsFor(
            wanted.filter((name) => extra.has(name)),
            tier,
          )
          .map((definition) => [definition.name, definition]),
      );
      const fromBase = new Map(
        base
          .definitionsFor(
            wanted.filter((name) => !extra.has(name)),
            tier,
          )
          .map((definition) => [definition.name, definition]),
      );
      return wanted.flatMap((name) => {
        const definition = fromExtra.get(name) ?? fromBase.get(name);
        return definition ? [definition] : [];
      });
    },
    validate: (name, input) => owner(name).validate(name, input),
    classify: (name, input, context) => owner(name).classify(name, input, context),
    preview: (name, input, context) => owner(name).preview(name, input, context),
    execute: (name, input, context) => owner(name).execute(name, input, context),
  };
}

/** Fails early when a registry that should hold the coordination tools does not. */
export function requireTools(registry: ToolRegistry, names: readonly string[]): void {
  const missing = names.filter((name) => !registry.has(name));
  if (missing.length > 0) throw new TsukaError('tool_registry_invalid', `The workflow tools are missing: ${missing.join(', ')}.`);
}
