import { requireAgentControl } from '../agent-control.js';
import type { ToolImplementation } from '../tool.js';

export type LoadToolsInput = { names: string[] };

/** `load_tools`: adds tools from the role's `allowedTools` that are not offered yet. */
export const loadToolsTool: ToolImplementation<LoadToolsInput> = {
  name: 'load_tools',

  preview: (input) => ({ summary: `load_tools ${input.names.join(', ')}` }),

  async execute(input, context) {
    const result = requireAgentControl(context, 'load_tools').loadTools(input.names);
    const loaded = result.loaded.length > 0 ? `Loaded: ${result.loaded.join(', ')}.` : 'Loaded nothing.';
    const rejected = result.rejected.map((entry) => `${entry.name} (${entry.reason})`);
    const output = rejected.length > 0 ? `${loaded} Rejected: ${rejected.join('; ')}.` : `${loaded} They are available from the next step.`;
    return {
      output,
      ...(result.loaded.length === 0 && rejected.length > 0 ? { isError: true } : {}),
      display: `${result.loaded.length} loaded${rejected.length > 0 ? ` · ${rejected.length} rejected` : ''}`,
    };
  },
};
