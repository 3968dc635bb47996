/** The stored shape of a long-term memory fact. */

export type MemoryKind = 'fact' | 'decision' | 'lesson' | 'run';

export const MEMORY_KINDS: readonly MemoryKind[] = ['fact', 'decision', 'lesson', 'run'];

/** The scope for facts that apply to every workspace. Workspace scopes are absolute paths. */
export const GLOBAL_MEMORY_SCOPE = 'global';

/** Longest summary shown in prompts and lists. */
export const MEMORY_SUMMARY_MAX_CHARS = 72;

export interface MemoryFact {
  id: string;
  content: string;
  /** At most 72 characters; derived from the content when not given. */
  summary: string;
  kind: MemoryKind;
  /** A workspace root, or `global`. */
  scope: string;
  tags: string[];
  pinned: boolean;
  hits: number;
  createdAt: number;
  lastUsedAt: number;
  /** Who saved it (an agent name or a user id). Recorded, never used to filter retrieval. */
  author: string;
}

/** True when `value` names a memory kind. */
export function isMemoryKind(value: unknown): value is MemoryKind {
  return typeof value === 'string' && (MEMORY_KINDS as readonly string[]).includes(value);
}
