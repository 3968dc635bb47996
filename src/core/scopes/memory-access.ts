/**
 * Memory as one conversation may use it: it reads its own scope and the shared ones, saves into its
 * own, and changes a fact (forget, pin, unpin, update) only when the person is the fact's author or
 * an admin. A fact of another conversation's scope does not exist from here ("not found"), so its
 * id tells nothing. Sharing a fact is an admin's.
 */
import { SHARED_MEMORY_SCOPE, type MemoryFact } from '../memory/memory-fact.js';
import type { FactPatch, MemoryStore, SaveFactInput } from '../memory/memory-store.js';
import { isSharedScope } from './conversation-scope.js';

/** Who uses memory, and where. */
export interface MemoryAccess {
  /** The conversation's scope (`memoryScopeOf`): where saves go; recall sees it and the shared scopes. */
  scope: string;
  /** Opaque platform user id of the person the conversation acts for (a run's requester). */
  user: string;
  /** Whether `user` may act as an admin (`TSUKA_ADMINS`; the host operator's `tsuka ask`). */
  isAdmin(user: string): boolean;
}

export type MemoryOutcome =
  | { ok: true; fact: MemoryFact }
  /** No such fact in this conversation's scopes. */
  | { ok: false; reason: 'not-found' }
  /** The fact is here, but this person may not change it; `message` says why. */
  | { ok: false; reason: 'forbidden'; message: string };

export interface ScopedMemory {
  readonly access: MemoryAccess;
  recall(query: string, limit: number): Promise<MemoryFact[]>;
  /** The conversation's facts and the shared ones, newest first. */
  list(): Promise<MemoryFact[]>;
  /** Saves into the conversation's scope, or into `shared` when `shared` is true (the caller checked the admin's approval). */
  save(input: Omit<SaveFactInput, 'scope' | 'savedBy'>, options?: { shared?: boolean }): Promise<{ fact: MemoryFact; merged: boolean }>;
  find(id: string): Promise<MemoryFact | undefined>;
  forget(id: string): Promise<MemoryOutcome>;
  pin(id: string): Promise<MemoryOutcome>;
  unpin(id: string): Promise<MemoryOutcome>;
  update(id: string, patch: FactPatch): Promise<MemoryOutcome>;
  /** Moves a fact of this conversation into `shared` (admins only); the outcome holds its new record. */
  share(id: string): Promise<MemoryOutcome>;
}

/** The sentence for a refused change of someone else's fact. */
export function notYoursMessage(fact: MemoryFact): string {
  return fact.savedBy
    ? `Only the person who saved ${fact.id} or an admin can change or forget it.`
    : `${fact.id} was saved before memory had authors: only an admin can change or forget it.`;
}

export function scopedMemory(memory: MemoryStore, access: MemoryAccess): ScopedMemory {
  const visible = (fact: MemoryFact | undefined): fact is MemoryFact => fact !== undefined && memory.visibleScopes(access.scope).includes(fact.scope);
  const mayChange = (fact: MemoryFact): boolean => access.isAdmin(access.user) || (fact.savedBy !== undefined && fact.savedBy === access.user);

  async function changeIfAllowed(id: string, apply: (fact: MemoryFact) => Promise<MemoryFact | undefined>): Promise<MemoryOutcome> {
    const fact = await memory.get(id);
    if (!visible(fact)) return { ok: false, reason: 'not-found' };
    if (!mayChange(fact)) return { ok: false, reason: 'forbidden', message: notYoursMessage(fact) };
    const changed = await apply(fact);
    return changed ? { ok: true, fact: changed } : { ok: false, reason: 'not-found' };
  }

  return {
    access,
    recall: (query, limit) => memory.recall(query, { scope: access.scope, limit }),
    async list() {
      const lists = await Promise.all(memory.visibleScopes(access.scope).map((scope) => memory.list(scope)));
      return lists.flat().sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    },
    save: (input, options = {}) => memory.save({ ...input, scope: options.shared ? SHARED_MEMORY_SCOPE : access.scope, savedBy: access.user }),
    async find(id) {
      const fact = await memory.get(id);
      return visible(fact) ? fact : undefined;
    },
    // Deleted is what was stored when asked: the outcome reports the fact as it was.
    forget: (id) => changeIfAllowed(id, async (fact) => ((await memory.forget(id)) ? fact : undefined)),
    pin: (id) => changeIfAllowed(id, () => memory.pin(id)),
    unpin: (id) => changeIfAllowed(id, () => memory.unpin(id)),
    update: (id, patch) => changeIfAllowed(id, () => memory.update(id, patch)),
    async share(id) {
      const fact = await memory.get(id);
      if (!visible(fact)) return { ok: false, reason: 'not-found' };
      if (!access.isAdmin(access.user)) return { ok: false, reason: 'forbidden', message: 'Only an admin can share a fact with every channel.' };
      if (isSharedScope(fact.scope)) return { ok: true, fact };
      const moved = await memory.moveTo(id, SHARED_MEMORY_SCOPE);
      return moved ? { ok: true, fact: moved } : { ok: false, reason: 'not-found' };
    },
  };
}
