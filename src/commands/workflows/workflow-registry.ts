/** The tools of workflow members: the plain tools plus the coordination tools, joined. */
import { createToolRegistry } from '../../core/tools/create-tool-registry.js';
import { coordinationToolImplementations } from '../../core/tools/impl/coordination-tools.js';
import type { ToolRegistry } from '../../core/tools/tool.js';
import { combineRegistries } from '../../core/workflows/combine-registries.js';
import type { CommandDependencies } from '../command-dependencies.js';

export function workflowToolRegistry(deps: Pick<CommandDependencies, 'tools' | 'toolSchemas' | 'logger'>): ToolRegistry {
  const implementations = coordinationToolImplementations();
  const schemas = new Map([...deps.toolSchemas].filter(([name]) => implementations.some((tool) => tool.name === name)));
  const coordination = createToolRegistry({ schemas, implementations, logger: deps.logger });
  return combineRegistries(deps.tools, coordination);
}
