import type { ToolImplementation } from '../tool.js';
import { describeFact, memoryServicesOf } from './memory-tool-services.js';

export type RecallMemoryInput = { query?: string; limit?: number };

/** Facts returned when the model gives no limit, and the most it may ask for. */
export const RECALL_MEMORY_DEFAULT_LIMIT = 5;
export const RECALL_MEMORY_MAX_LIMIT = 20;

/** `recall_memory`: best-matching facts of this conversation and shared memory (or the top ones, with no query). */
export const recallMemoryTool: ToolImplementation<RecallMemoryInput> = {
  name: 'recall_memory',

  preview: (input) => ({ summary: input.query ? `recall_memory "${input.query}"` : 'recall_memory' }),

  async execute(input, context) {
    const limit = Math.min(RECALL_MEMORY_MAX_LIMIT, Math.max(1, Math.floor(input.limit ?? RECALL_MEMORY_DEFAULT_LIMIT)));
    const facts = await memoryServicesOf(context).recall(input.query ?? '', limit);
    if (facts.length === 0) {
      return { output: input.query ? `No memory matches "${input.query}".` : 'Memory is empty.', display: '0 facts' };
    }
    const count = `${facts.length} ${facts.length === 1 ? 'fact' : 'facts'}`;
    return { output: `${count}:\n${facts.map(describeFact).join('\n')}`, display: count };
  },
};
