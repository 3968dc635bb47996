/** The stored shape of a long-term memory fact. */

export type MemoryKind = 'fact' | 'decision' | 'lesson' | 'run';

export const MEMORY_KINDS: readonly MemoryKind[] = ['fact', 'decision', 'lesson', 'run'];

/**
 * The scope of facts every conversation sees (an admin shared them). Other scopes are a
 * conversation's (`channel:…`, `user:…`, `local:…`, see `src/core/scopes/conversation-scope.ts`);
 * facts saved before scopes existed keep their old scope (a workspace path, or `global`) and are
 * read as shared facts (`src/core/scopes/memory-upgrade.ts`).
 */
export const SHARED_MEMORY_SCOPE = 'shared';

/** Longest summary shown in prompts and lists. */
export const MEMORY_SUMMARY_MAX_CHARS = 72;

export interface MemoryFact {
  id: string;
  content: string;
  /** At most 72 characters; derived from the content when not given. */
  summary: string;
  kind: MemoryKind;
  /** Where it was said (`channel:slack:T1/C1`, `user:slack:U1`, `local:alice`), or `shared`. */
  scope: string;
  tags: string[];
  pinned: boolean;
  hits: number;
  createdAt: number;
  lastUsedAt: number;
  /** Who saved it (an agent name or a user id). Recorded, never used to filter retrieval. */
  author: string;
  /**
   * The platform user id of the person whose conversation saved it (`slack:U1`): besides an admin,
   * the only one who may forget, pin, unpin or change it. Absent on facts saved before scopes.
   */
  savedBy?: string;
}

/** True when `value` names a memory kind. */
export function isMemoryKind(value: unknown): value is MemoryKind {
  return typeof value === 'string' && (MEMORY_KINDS as readonly string[]).includes(value);
}
