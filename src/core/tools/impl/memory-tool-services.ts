/**
 * What the memory tools need from whoever runs the agent: the memory store in
 * `context.services.memory` and the workspace's scope in `context.services.memoryScope`.
 */
import type { MemoryStore } from '../../memory/memory-store.js';
import type { MemoryFact } from '../../memory/memory-fact.js';
import type { ToolContext } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';

const MEMORY_METHODS = ['save', 'recall', 'get', 'update', 'forget'] as const;

function isMemoryStore(value: unknown): value is MemoryStore {
  return typeof value === 'object' && value !== null && MEMORY_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

/** The memory store and scope from the tool context; a `ToolFailureError` when memory is not set up. */
export function memoryServicesOf(context: ToolContext): { memory: MemoryStore; scope: string } {
  const memory = context.services.memory;
  const scope = context.services.memoryScope;
  if (!isMemoryStore(memory) || typeof scope !== 'string' || scope === '') {
    throw new ToolFailureError('Memory is not available in this run.');
  }
  return { memory, scope };
}

/** A fact as the model reads it in tool output. */
export function describeFact(fact: MemoryFact): string {
  const flags = [fact.kind, fact.pinned ? 'pinned' : undefined, fact.scope === 'global' ? 'global' : undefined].filter(Boolean).join(', ');
  const tags = fact.tags.length > 0 ? ` #${fact.tags.join(' #')}` : '';
  return `${fact.id} [${flags}] ${fact.summary}${tags}\n  ${fact.content.replace(/\n/g, '\n  ')}`;
}
