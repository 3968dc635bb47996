import type { MemoryKind } from '../../memory/memory-fact.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { describeFact, memoryServicesOf } from './memory-tool-services.js';

export type UpdateMemoryInput = {
  id: string;
  content?: string;
  summary?: string;
  kind?: MemoryKind;
  tags?: string[];
  pinned?: boolean;
};

/** `update_memory`: corrects a saved fact; fields not given stay as they are. */
export const updateMemoryTool: ToolImplementation<UpdateMemoryInput> = {
  name: 'update_memory',

  preview: (input) => ({ summary: `update_memory ${input.id}` }),

  async execute(input, context) {
    const { memory } = memoryServicesOf(context);
    const { id, ...patch } = input;
    const fact = await memory.update(id, patch);
    if (!fact) throw new ToolFailureError(`No memory has the id ${id}; use recall_memory to find ids.`);
    return { output: `Updated:\n${describeFact(fact)}`, display: `updated ${fact.id}` };
  },
};
