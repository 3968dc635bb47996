/**
 * Every tool a role's prompt names must be one the role can reach at the MEDIUM tier: offered from
 * the first round or available on demand, in a registry holding every tool source (the engine's
 * tools, memory, and the coordination tools workflows add).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRoster } from '../../../src/core/data/load-roster.js';
import type { Roster } from '../../../src/core/data/types.js';
import { MEMORY_TOOLS, offeredTools, speaksOfMemory } from '../../../src/core/agent/offered-tools.js';
import { loadToolSchemas } from '../../../src/core/tools/tool-schema-loader.js';
import { createToolRegistry } from '../../../src/core/tools/create-tool-registry.js';
import { builtinToolImplementations } from '../../../src/core/tools/builtin-tools.js';
import { memoryToolImplementations } from '../../../src/core/tools/impl/memory-tools.js';
import { coordinationToolImplementations } from '../../../src/core/tools/impl/coordination-tools.js';
import { WORKFLOW_TOOL_NAMES } from '../../../src/core/tools/workflow-tool-names.js';
import type { ToolRegistry } from '../../../src/core/tools/tool.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('role prompts name only tools the role can reach', () => {
  let roster: Roster;
  let tools: ToolRegistry;
  beforeAll(async () => {
    const schemas = await loadToolSchemas(path.join(root, 'tools_schemas'));
    roster = await loadRoster({ rootDirectory: root, knownTools: new Set([...schemas.keys(), ...WORKFLOW_TOOL_NAMES]) });
    tools = createToolRegistry({
      schemas,
      implementations: [...builtinToolImplementations({ enableCreateTool: true }), ...memoryToolImplementations(), ...coordinationToolImplementations()],
    });
  });

  it('reaches, at MEDIUM, every tool named in each role prompt', () => {
    const problems: string[] = [];
    for (const role of roster.roles.values()) {
      const named = tools.names().filter((name) => new RegExp(`\\b${name}\\b`).test(role.systemPrompt));
      const offered = offeredTools({ role, loadedTools: [], tools, tier: 'MEDIUM' });
      const reachable = new Set([...offered.names, ...offered.onDemand.map((tool) => tool.name)]);
      for (const name of named) if (!reachable.has(name)) problems.push(`${role.name} names ${name}`);
    }
    expect(problems).toEqual([]);
  });

  it('offers the memory tools from the first round to every role whose prompt speaks of memory', () => {
    for (const role of roster.roles.values()) {
      if (!speaksOfMemory(role)) continue;
      const offered = offeredTools({ role, loadedTools: [], tools, tier: 'MEDIUM' });
      for (const name of MEMORY_TOOLS.filter((tool) => role.allowedTools.includes(tool))) expect(offered.names.has(name), `${role.name}: ${name}`).toBe(true);
    }
  });

  it('has at least one shipped role that lists create_tool', () => {
    expect([...roster.roles.values()].some((role) => role.allowedTools.includes('create_tool'))).toBe(true);
  });
});
