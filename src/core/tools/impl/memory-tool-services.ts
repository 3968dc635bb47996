/**
 * What the memory tools need from whoever runs the agent: the memory store in
 * `context.services.memory` and who uses it where in `context.services.memoryAccess`
 * (`MemoryAccess`: the conversation's scope, the requester, who is an admin).
 */
import type { MemoryStore } from '../../memory/memory-store.js';
import type { MemoryFact } from '../../memory/memory-fact.js';
import { isSharedScope } from '../../scopes/conversation-scope.js';
import { type MemoryAccess, type MemoryOutcome, scopedMemory, type ScopedMemory } from '../../scopes/memory-access.js';
import type { ToolContext } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';

const MEMORY_METHODS = ['save', 'recall', 'get', 'update', 'forget', 'visibleScopes'] as const;

function isMemoryStore(value: unknown): value is MemoryStore {
  return typeof value === 'object' && value !== null && MEMORY_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

function isMemoryAccess(value: unknown): value is MemoryAccess {
  const access = value as Partial<MemoryAccess> | null;
  return (
    typeof access === 'object' &&
    access !== null &&
    typeof access.scope === 'string' &&
    access.scope !== '' &&
    typeof access.user === 'string' &&
    typeof access.isAdmin === 'function'
  );
}

/** Memory as this run's conversation may use it; a `ToolFailureError` when memory is not set up. */
export function memoryServicesOf(context: ToolContext): ScopedMemory {
  const memory = context.services.memory;
  const access = context.services.memoryAccess;
  if (!isMemoryStore(memory) || !isMemoryAccess(access)) {
    throw new ToolFailureError('Memory is not available in this run.');
  }
  return scopedMemory(memory, access);
}

/** The fact of a change, or the tool failure the model reads. */
export function factOrFailure(outcome: MemoryOutcome, id: string): MemoryFact {
  if (outcome.ok) return outcome.fact;
  throw new ToolFailureError(outcome.reason === 'forbidden' ? outcome.message : `No memory has the id ${id}; use recall_memory to find ids.`);
}

/** A fact as the model reads it in tool output. */
export function describeFact(fact: MemoryFact): string {
  const flags = [fact.kind, fact.pinned ? 'pinned' : undefined, isSharedScope(fact.scope) ? 'shared' : undefined].filter(Boolean).join(', ');
  const tags = fact.tags.length > 0 ? ` #${fact.tags.join(' #')}` : '';
  return `${fact.id} [${flags}] ${fact.summary}${tags}\n  ${fact.content.replace(/\n/g, '\n  ')}`;
}
