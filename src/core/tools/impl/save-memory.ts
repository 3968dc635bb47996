import { shortenToSummary, deriveSummary } from '../../memory/fact-summary.js';
import type { MemoryKind } from '../../memory/memory-fact.js';
import type { CallRisk, ToolImplementation } from '../tool.js';
import { memoryServicesOf } from './memory-tool-services.js';

export type SaveMemoryInput = { content: string; summary?: string; kind?: MemoryKind; scope?: 'conversation' | 'shared' };

const SHARE_RISK: CallRisk = {
  level: 'DANGEROUS',
  reason: 'a shared memory reaches every channel and DM: only an admin’s approval shares it (otherwise it stays in this conversation)',
};
const LOCAL_RISK: CallRisk = { level: 'SAFE', reason: 'a memory of this conversation' };

/** `save_memory`: keeps a fact for later prompts of this conversation (or, approved by an admin, of every one); an equal fact is merged. */
export const saveMemoryTool: ToolImplementation<SaveMemoryInput> = {
  name: 'save_memory',

  classify: (input) => (input.scope === 'shared' ? SHARE_RISK : LOCAL_RISK),

  preview: (input) => ({
    summary: `save_memory ${input.kind ?? 'fact'}${input.scope === 'shared' ? ' (shared with every channel)' : ''}: ${input.summary ? shortenToSummary(input.summary) : deriveSummary(input.content)}`,
    ...(input.scope === 'shared' ? { details: [input.content.slice(0, 400)] } : {}),
  }),

  async execute(input, context) {
    const memory = memoryServicesOf(context);
    // The approval question asked everyone who may decide; only an admin's click makes it shared.
    const shared = input.scope === 'shared' && context.approvedBy !== undefined && memory.access.isAdmin(context.approvedBy);
    const { fact, merged } = await memory.save({ content: input.content, summary: input.summary, kind: input.kind, author: context.agentName }, { shared });
    const where = shared ? 'shared memory (every channel)' : 'the memory of this conversation';
    const note =
      input.scope === 'shared' && !shared
        ? ` It was not shared: only an admin's approval shares a memory; an admin can run \`/tsuka memory share ${fact.id}\`.`
        : '';
    return merged
      ? { output: `Already known as ${fact.id} in ${where} ("${fact.summary}"); merged.${note}`, display: `merged ${fact.id}` }
      : { output: `Saved ${fact.id} to ${where}: "${fact.summary}".${note}`, display: `saved ${fact.id}` };
  },
};
