/**
 * The in-process view of one memory scope: a BM25 index of its facts, what ranking, retention and
 * eviction read of each fact (columns by index slot, so a snapshot opens without an object per
 * fact), duplicate keys by hash, and the full facts this process has read. Changing a view is
 * synchronous; `memory-scope-cache.ts` decides when and from where.
 */
import { addDocument, createBm25Index, documentCount, forEachDocument, hasDocument, removeDocument, slotOf, type Bm25Index } from './bm25-index.js';
import { MEMORY_KINDS, type MemoryFact } from './memory-fact.js';
import { analyze, tokenize } from './text-normalize.js';

/** What ranking, retention and eviction read of a fact. */
export type FactSketch = Pick<MemoryFact, 'id' | 'pinned' | 'kind' | 'hits' | 'createdAt' | 'lastUsedAt'>;

/**
 * Per index slot, in typed arrays that grow (a snapshot's arrays are used as they are). `flags`:
 * 1 = pinned, the rest the kind's place in `MEMORY_KINDS` (shifted by 1).
 */
export interface FactColumns {
  flags: Uint8Array;
  hits: Float64Array;
  createdAt: Float64Array;
  lastUsedAt: Float64Array;
  /** Hash of the searchable text (content, summary, tags): equal means no re-indexing. */
  textHash: Float64Array;
  /** Hash of the content's duplicate key. */
  duplicateHash: Float64Array;
}

export interface ScopeView {
  scope: string;
  index: Bm25Index;
  columns: FactColumns;
  /** Duplicate-key hash → fact id, made on first use. */
  duplicates?: Map<number, string>;
  /** Full facts known to be current (every fact after a full read; those read since, after a snapshot). */
  facts: Map<string, MemoryFact>;
  /** Counts changes, so a fact read from the store meanwhile is not cached over a newer one. */
  epoch: number;
  /** Facts whose text was indexed anew since the view was last saved (kept when it has a persisted index). */
  reindexed?: Set<string>;
}

export const PINNED_FLAG = 1;

function createColumns(capacity: number, from?: FactColumns): FactColumns {
  const grow = <T extends Float64Array | Uint8Array>(make: (size: number) => T, old: T | undefined): T => {
    const column = make(capacity);
    if (old) column.set(old.subarray(0, Math.min(old.length, capacity)));
    return column;
  };
  const float = (size: number) => new Float64Array(size);
  return {
    flags: grow((size) => new Uint8Array(size), from?.flags),
    hits: grow(float, from?.hits),
    createdAt: grow(float, from?.createdAt),
    lastUsedAt: grow(float, from?.lastUsedAt),
    textHash: grow(float, from?.textHash),
    duplicateHash: grow(float, from?.duplicateHash),
  };
}

export function createScopeView(scope: string): ScopeView {
  return { scope, index: createBm25Index(), columns: createColumns(64), facts: new Map(), epoch: 0 };
}

/**
 * A 53-bit string hash (cyrb53, public domain): collisions are rare enough that equal hashes are
 * treated as equal text, except for duplicates, which are checked against the fact's content.
 */
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let position = 0; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

export const factCount = (view: ScopeView): number => documentCount(view.index);
export const hasFact = (view: ScopeView, id: string): boolean => hasDocument(view.index, id);

/** The sketch of every fact of the view. */
export function sketches(view: ScopeView): FactSketch[] {
  const { flags, hits, createdAt, lastUsedAt } = view.columns;
  const found: FactSketch[] = [];
  forEachDocument(view.index, (slot, id) => {
    const kind = MEMORY_KINDS[flags[slot]! >> 1] ?? 'fact';
    found.push({ id, pinned: (flags[slot]! & PINNED_FLAG) !== 0, kind, hits: hits[slot]!, createdAt: createdAt[slot]!, lastUsedAt: lastUsedAt[slot]! });
  });
  return found;
}

/** The ids of the view's pinned facts. */
export function pinnedIds(view: ScopeView): string[] {
  const pinned: string[] = [];
  forEachDocument(view.index, (slot, id) => (view.columns.flags[slot]! & PINNED_FLAG) !== 0 && pinned.push(id));
  return pinned;
}

/** Duplicate-key hash → fact id (the last fact put wins a shared key). */
export function duplicatesOf(view: ScopeView): Map<number, string> {
  if (!view.duplicates) {
    view.duplicates = new Map();
    forEachDocument(view.index, (slot, id) => view.duplicates!.set(view.columns.duplicateHash[slot]!, id));
  }
  return view.duplicates;
}

function textHashOf(fact: MemoryFact): number {
  return hash53(`${fact.content}\u0000${fact.summary}\u0000${fact.tags.join('\u0000')}`);
}

/** Records `fact` in the view; its text is analysed and indexed again only when it changed. */
export function putFact(view: ScopeView, fact: MemoryFact): void {
  const textHash = textHashOf(fact);
  let columns = view.columns;
  let slot = slotOf(view.index, fact.id);
  if (slot === undefined || columns.textHash[slot] !== textHash) {
    const previousHash = slot === undefined ? undefined : columns.duplicateHash[slot];
    // The content is analysed once: its terms feed the index, its key the exact-duplicate map.
    const content = analyze(fact.content);
    // Also found by its summary and tags.
    addDocument(view.index, fact.id, content.terms, tokenize(`${fact.summary}\n${fact.tags.join(' ')}`));
    slot = slotOf(view.index, fact.id)!;
    if (slot >= columns.flags.length) columns = view.columns = createColumns(2 * slot + 64, columns);
    columns.textHash[slot] = textHash;
    columns.duplicateHash[slot] = hash53(content.duplicateKey);
    if (view.duplicates) {
      if (previousHash !== undefined && view.duplicates.get(previousHash) === fact.id) view.duplicates.delete(previousHash);
      view.duplicates.set(columns.duplicateHash[slot]!, fact.id);
    }
    view.reindexed?.add(fact.id);
  }
  columns.flags[slot] = (fact.pinned ? PINNED_FLAG : 0) | (Math.max(0, MEMORY_KINDS.indexOf(fact.kind)) << 1);
  columns.hits[slot] = fact.hits;
  columns.createdAt[slot] = fact.createdAt;
  columns.lastUsedAt[slot] = fact.lastUsedAt;
  view.facts.set(fact.id, fact);
  view.epoch += 1;
}

/** Drops fact `id` from the view. */
export function removeFact(view: ScopeView, id: string): void {
  view.facts.delete(id);
  view.epoch += 1;
  const slot = slotOf(view.index, id);
  if (slot === undefined) return;
  const duplicateHash = view.columns.duplicateHash[slot]!;
  if (view.duplicates?.get(duplicateHash) === id) view.duplicates.delete(duplicateHash);
  removeDocument(view.index, id);
}

/** Applies changes read from the store: `facts` as now stored, and the `gone` ids. */
export function applyChanges(view: ScopeView, facts: readonly MemoryFact[], gone: readonly string[]): void {
  for (const id of gone) removeFact(view, id);
  for (const fact of facts) putFact(view, fact);
}
