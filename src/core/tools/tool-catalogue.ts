/**
 * The catalogue: the engine's own tools plus every tool source, as the one registry the agent loop
 * uses. A name a source owns is routed to it even when its tool is withdrawn, so the model gets the
 * source's explanation instead of "unknown tool".
 */
import type { ToolDefinition } from '../model/language-model.js';
import type { Roster, Role } from '../data/types.js';
import type { ModelTier, ToolRegistry } from './tool.js';
import type { ToolSource, ToolSourceGroup } from './tool-source.js';

export interface ToolCatalogue extends ToolRegistry {
  readonly sources: readonly ToolSource[];
  /** The engine's own tools, then each source's groups: what `/tsuka tools` lists. */
  groups(): ToolSourceGroup[];
}

export function createToolCatalogue(builtin: ToolRegistry, sources: readonly ToolSource[]): ToolCatalogue {
  const owner = (name: string): ToolRegistry => sources.find((source) => source.owns(name))?.registry ?? builtin;
  return {
    sources,
    groups: () => [{ label: 'Built-in', state: 'ready', tools: builtin.names() }, ...sources.flatMap((source) => source.groups())],
    has: (name) => owner(name).has(name),
    schema: (name) => owner(name).schema(name),
    names: () => [...new Set([...builtin.names(), ...sources.flatMap((source) => source.registry.names())])].sort(),
    definitionsFor(names: Iterable<string>, tier: ModelTier): ToolDefinition[] {
      const wanted = [...new Set(names)];
      const found = new Map<string, ToolDefinition>();
      for (const registry of [builtin, ...sources.map((source) => source.registry)]) {
        const mine = wanted.filter((name) => owner(name) === registry);
        if (mine.length > 0) for (const definition of registry.definitionsFor(mine, tier)) found.set(definition.name, definition);
      }
      return wanted.flatMap((name) => (found.has(name) ? [found.get(name)!] : []));
    },
    validate: (name, input) => owner(name).validate(name, input),
    classify: (name, input, context) => owner(name).classify(name, input, context),
    preview: (name, input, context) => owner(name).preview(name, input, context),
    execute: (name, input, context) => owner(name).execute(name, input, context),
  };
}

/**
 * Keeps each roster role's `allowedTools` = its own list + the source tools that role may use, now
 * and whenever a source changes. Source tools are not core tools: roles with a core subset load them
 * with `load_tools`, like any other tool outside the core. Returns an unsubscribe.
 */
export function attachToolSourcesToRoster(roster: Roster, sources: readonly ToolSource[]): () => void {
  const base = new Map<string, Role>(roster.roles);
  const apply = (): void => {
    for (const [name, role] of base) {
      const extra = sources.flatMap((source) => source.toolsForRole(name)).filter((tool) => !role.allowedTools.includes(tool));
      roster.roles.set(name, extra.length === 0 ? role : { ...role, allowedTools: [...role.allowedTools, ...extra] });
    }
  };
  apply();
  const unsubscribes = sources.map((source) => source.onChange(apply));
  return () => unsubscribes.forEach((unsubscribe) => unsubscribe());
}
