import type { ToolDefinition } from '../model/language-model.js';
import type { Role } from '../data/types.js';
import type { ModelTier, ToolRegistry } from '../tools/tool.js';

/** The tool that loads the rest of a role's tools on demand. */
export const LOAD_TOOLS_TOOL = 'load_tools';

export interface OfferedToolsInput {
  role: Role;
  /** Tools loaded with `load_tools` this session. */
  loadedTools: Iterable<string>;
  tools: ToolRegistry;
  tier: ModelTier;
}

/** The tools offered to the model this round, as definitions. */
export interface OfferedTools {
  definitions: ToolDefinition[];
  names: Set<string>;
}

/**
 * Role `allowedTools` ∩ (`coreTools` when set, else all allowed), plus loaded tools that the role
 * allows, plus `load_tools` whenever the role has a core subset; then filtered by the model's tier.
 */
export function offeredTools(input: OfferedToolsInput): OfferedTools {
  const { role, loadedTools, tools, tier } = input;
  const allowed = new Set(role.allowedTools);
  const wanted = new Set<string>();
  const base = role.coreTools ?? role.allowedTools;
  for (const name of base) if (allowed.has(name)) wanted.add(name);
  for (const name of loadedTools) if (allowed.has(name)) wanted.add(name);
  if (role.coreTools !== undefined) wanted.add(LOAD_TOOLS_TOOL);
  const known = [...wanted].filter((name) => tools.has(name));
  const definitions = tools.definitionsFor(known, tier).filter((definition) => wanted.has(definition.name));
  return { definitions, names: new Set(definitions.map((definition) => definition.name)) };
}
