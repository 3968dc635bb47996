import type { ToolDefinition } from '../model/language-model.js';
import type { Role } from '../data/types.js';
import type { ModelTier, ToolRegistry } from '../tools/tool.js';

/** The tool that loads the rest of a role's tools on demand. */
export const LOAD_TOOLS_TOOL = 'load_tools';

/** The memory tools, offered from the first round to a role whose prompt speaks of memory. */
export const MEMORY_TOOLS: readonly string[] = ['save_memory', 'recall_memory', 'update_memory', 'forget_memory'];

export interface OfferedToolsInput {
  role: Role;
  /** Tools loaded with `load_tools` (or by a direct call) this session. */
  loadedTools: Iterable<string>;
  tools: ToolRegistry;
  tier: ModelTier;
}

/** A tool the role allows that is not offered yet: a direct call loads it. */
export interface OnDemandTool {
  name: string;
  /** The first sentence of its description, for the system prompt. */
  purpose: string;
}

/** The tools offered to the model this round, as definitions, and the ones it may still load. */
export interface OfferedTools {
  definitions: ToolDefinition[];
  names: Set<string>;
  /** Allowed by the role, present here, reachable at this tier, not offered yet. */
  onDemand: OnDemandTool[];
}

/**
 * The tools a role may use: its `allowedTools`, plus every tool made with `create_tool` when the
 * role allows `create_tool` (the role that may make tools may use what it made).
 */
export function roleToolNames(role: Role, tools: ToolRegistry): string[] {
  if (!role.allowedTools.includes('create_tool')) return role.allowedTools;
  const created = tools.names().filter((name) => tools.schema(name)?.origin === 'created');
  return [...new Set([...role.allowedTools, ...created])];
}

/** Whether a role's prompt asks for long-term memory (a memory tool by name, or the word). */
export function speaksOfMemory(role: Role): boolean {
  return /\bmemory\b|_memory\b/i.test(role.systemPrompt);
}

function purposeOf(description: string): string {
  const sentence = description.split(/(?<=\.)\s/, 1)[0]!.trim();
  return sentence.length > 140 ? `${sentence.slice(0, 139)}…` : sentence;
}

/**
 * Role `allowedTools` ∩ (`coreTools` when set, else all allowed), plus loaded tools that the role
 * allows, plus the memory tools when the role's prompt speaks of memory, plus `load_tools`
 * whenever the role has a core subset; then filtered by the model's tier and by what this registry
 * holds. The rest of what the role allows (and the tier reaches) is `onDemand`.
 */
export function offeredTools(input: OfferedToolsInput): OfferedTools {
  const { role, loadedTools, tools, tier } = input;
  const allowed = new Set(roleToolNames(role, tools));
  const wanted = new Set<string>();
  const base = role.coreTools ?? role.allowedTools;
  for (const name of base) if (allowed.has(name)) wanted.add(name);
  for (const name of loadedTools) if (allowed.has(name)) wanted.add(name);
  if (speaksOfMemory(role)) for (const name of MEMORY_TOOLS) if (allowed.has(name)) wanted.add(name);
  if (role.coreTools !== undefined) wanted.add(LOAD_TOOLS_TOOL);
  const known = [...wanted].filter((name) => tools.has(name));
  const definitions = tools.definitionsFor(known, tier).filter((definition) => wanted.has(definition.name));
  const names = new Set(definitions.map((definition) => definition.name));
  const onDemand = tools
    .definitionsFor(
      [...allowed].filter((name) => !names.has(name) && tools.has(name)),
      tier,
    )
    .map((definition) => ({ name: definition.name, purpose: purposeOf(definition.description) }));
  return { definitions, names, onDemand };
}

/**
 * Exactly `names` (those this registry holds and the tier reaches), whatever the role allows: a
 * turn that must answer through one tool and nothing else (the /call moderator's `record_decision`).
 */
export function exactTools(names: readonly string[], tools: ToolRegistry, tier: ModelTier): OfferedTools {
  const wanted = new Set(names);
  const definitions = tools
    .definitionsFor(
      [...wanted].filter((name) => tools.has(name)),
      tier,
    )
    .filter((definition) => wanted.has(definition.name));
  return { definitions, names: new Set(definitions.map((definition) => definition.name)), onDemand: [] };
}

/** Why a tool cannot be called at all: not in this registry, not in the role, or above the tier. */
export function unreachableReason(name: string, input: Omit<OfferedToolsInput, 'loadedTools'>): string {
  if (!input.tools.has(name)) return `there is no tool ${name} here`;
  if (!roleToolNames(input.role, input.tools).includes(name)) return `your role (${input.role.name}) does not allow ${name}`;
  if (input.tools.definitionsFor([name], input.tier).length === 0) return `${name} needs a larger model than this one (tier ${input.tier})`;
  return `${name} is not offered`;
}

/** The system-prompt section naming the tools a direct call (or `load_tools`) makes available. */
export function formatOnDemandSection(onDemand: readonly OnDemandTool[]): string | undefined {
  if (onDemand.length === 0) return undefined;
  return [
    '## Tools available on demand',
    'Your role also allows these tools; call one directly (it is loaded on first use) or load several with load_tools:',
    ...onDemand.map((tool) => `- ${tool.name}: ${tool.purpose}`),
  ].join('\n');
}
