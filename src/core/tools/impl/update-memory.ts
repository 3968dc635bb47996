import type { MemoryKind } from '../../memory/memory-fact.js';
import type { ToolImplementation } from '../tool.js';
import { describeFact, factOrFailure, memoryServicesOf } from './memory-tool-services.js';

export type UpdateMemoryInput = {
  id: string;
  content?: string;
  summary?: string;
  kind?: MemoryKind;
  tags?: string[];
  pinned?: boolean;
};

/** `update_memory`: corrects a saved fact (its author's or an admin's run only); fields not given stay as they are. */
export const updateMemoryTool: ToolImplementation<UpdateMemoryInput> = {
  name: 'update_memory',

  preview: (input) => ({ summary: `update_memory ${input.id}` }),

  async execute(input, context) {
    const { id, ...patch } = input;
    const fact = factOrFailure(await memoryServicesOf(context).update(id, patch), id);
    return { output: `Updated:\n${describeFact(fact)}`, display: `updated ${fact.id}` };
  },
};
