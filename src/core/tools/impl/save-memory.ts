import { shortenToSummary, deriveSummary } from '../../memory/fact-summary.js';
import { GLOBAL_MEMORY_SCOPE, type MemoryKind } from '../../memory/memory-fact.js';
import type { ToolImplementation } from '../tool.js';
import { memoryServicesOf } from './memory-tool-services.js';

export type SaveMemoryInput = { content: string; summary?: string; kind?: MemoryKind; global?: boolean };

/** `save_memory`: keeps a fact for later prompts of every character; an equal fact is merged. */
export const saveMemoryTool: ToolImplementation<SaveMemoryInput> = {
  name: 'save_memory',

  preview: (input) => ({
    summary: `save_memory ${input.kind ?? 'fact'}: ${input.summary ? shortenToSummary(input.summary) : deriveSummary(input.content)}`,
  }),

  async execute(input, context) {
    const { memory, scope } = memoryServicesOf(context);
    const { fact, merged } = await memory.save({
      content: input.content,
      summary: input.summary,
      kind: input.kind,
      scope: input.global === true ? GLOBAL_MEMORY_SCOPE : scope,
      author: context.agentName,
    });
    const where = fact.scope === GLOBAL_MEMORY_SCOPE ? 'global memory' : 'workspace memory';
    return merged
      ? { output: `Already known as ${fact.id} in ${where} ("${fact.summary}"); merged.`, display: `merged ${fact.id}` }
      : { output: `Saved ${fact.id} to ${where}: "${fact.summary}".`, display: `saved ${fact.id}` };
  },
};
