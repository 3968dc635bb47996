/**
 * The inverted index BM25 scores (`bm25.ts`): documents in numbered slots, terms with numeric ids,
 * each document's distinct terms kept too (to remove it, and for duplicate checks). An index opened
 * from a snapshot (`bm25-packing.ts`) keeps the packed documents as its base and never changes their
 * arrays: a removed base document is marked (its slot is not reused), documents added since live in
 * per-term arrays and a pool of their own. Removing any document costs its own terms, no more.
 * The base's document ids and terms stay packed too (sorted, in one string each, found by binary
 * search): opening an index makes no object and no map entry per document or term.
 */

import { findSorted, type SortedStrings, stringAt } from './sorted-strings.js';

/** Entries grouped by key (a term's postings, or a document's terms): key `k` at `[offsets[k], offsets[k + 1])`. */
export interface Packed {
  offsets: Int32Array;
  /** Slots (postings) or term ids (documents). */
  values: Int32Array;
  /** A term's count, | `CONTENT_TERM` when it occurs in the document's content (not only summary or tags). */
  weights: Uint16Array;
}

export interface Bm25Base {
  /** Slots below this are base documents. */
  count: number;
  /** By base term id. */
  postings: Packed;
  /** By base slot. */
  documents: Packed;
  /** By base slot: 1 once removed. */
  removed: Uint8Array;
  /** By base term id: postings whose document was removed. */
  removedPerTerm: Int32Array;
  /** Base documents removed so far. */
  removedCount: number;
  /** Base document ids by slot (slot order is id order). */
  ids: SortedStrings;
  /** Base terms by term id (id order is term order). */
  terms: SortedStrings;
}

export interface Bm25Index {
  /** Term → term id of the terms added since the base (a base term is found in `base.terms`). Never reused while the index lives. */
  termIds: Map<string, number>;
  /** Term id `base terms + i` → term at `i`. */
  terms: string[];
  base?: Bm25Base;
  /** term id → `[slot, weight, slot, weight, …]` of the documents added since the base, in no order. */
  added: (number[] | undefined)[];
  /** Terms of documents added since the base: slot `s` at `[starts[s], ends[s])`; removed ones leave garbage. */
  pool: { terms: Int32Array; weights: Uint16Array; used: number; garbage: number; starts: number[]; ends: number[] };
  /** Slot `base count + i` → document id at `i` (undefined for a free slot): the documents added since the base. */
  ids: (string | undefined)[];
  /** Document id → slot of the documents added since the base (a base document is found in `base.ids`). */
  slots: Map<string, number>;
  /** slot → document length in terms. */
  lengths: number[];
  /** Free slots above the base (slot numbers, not positions in `ids`). */
  freeSlots: number[];
  totalLength: number;
  /** Reused by searches: scores by slot (all zero between searches) and the slots touched. */
  scratch?: { scores: Float64Array; touched: Int32Array };
}

/** Set in a weight when the term occurs in the document's content (not only in its summary or tags). */
export const CONTENT_TERM = 0x8000;
/** The count part of a weight (counts above it are capped; a fact holds ≤ 4,000 characters). */
export const TERM_COUNT_MASK = 0x7fff;
/** Garbage in the pool above which (and above half of it) the pool is compacted. */
const COMPACT_AFTER = 4_096;

const emptyPool = (capacity: number): Bm25Index['pool'] => ({
  terms: new Int32Array(capacity),
  weights: new Uint16Array(capacity),
  used: 0,
  garbage: 0,
  starts: [],
  ends: [],
});

export type { SortedStrings } from './sorted-strings.js';

export function createBm25Index(): Bm25Index {
  return { termIds: new Map(), terms: [], added: [], pool: emptyPool(64), ids: [], slots: new Map(), lengths: [], freeSlots: [], totalLength: 0 };
}

/** How many documents `index` holds. */
export function documentCount(index: Bm25Index): number {
  const base = index.base;
  return index.slots.size + (base ? base.count - base.removedCount : 0);
}

/** One past the highest slot (base and added, free ones included). */
export function slotCount(index: Bm25Index): number {
  return (index.base?.count ?? 0) + index.ids.length;
}

/** The id of the document in `slot`, undefined for a free or removed slot. */
export function idAt(index: Bm25Index, slot: number): string | undefined {
  const base = index.base;
  if (!base) return index.ids[slot];
  if (slot >= base.count) return index.ids[slot - base.count];
  if (base.removed[slot]) return undefined;
  return stringAt(base.ids, slot);
}

/** The slot of document `id`, or undefined when the index does not hold it. */
export function slotOf(index: Bm25Index, id: string): number | undefined {
  const added = index.slots.get(id);
  if (added !== undefined || !index.base) return added;
  const slot = findSorted(index.base.ids, id);
  return slot === undefined || index.base.removed[slot] ? undefined : slot;
}

/** How many term ids the index has given (base and added). */
export function termCount(index: Bm25Index): number {
  return (index.base ? index.base.terms.offsets.length - 1 : 0) + index.terms.length;
}

/** The id of `term`, or undefined when no document ever held it. */
export function termIdOf(index: Bm25Index, term: string): number | undefined {
  const added = index.termIds.get(term);
  return added !== undefined || !index.base ? added : findSorted(index.base.terms, term);
}

/** The term of id `termId`. */
export function termAt(index: Bm25Index, termId: number): string {
  const baseTerms = index.base ? index.base.terms.offsets.length - 1 : 0;
  return termId < baseTerms ? stringAt(index.base!.terms, termId) : index.terms[termId - baseTerms]!;
}

export const hasDocument = (index: Bm25Index, id: string): boolean => slotOf(index, id) !== undefined;

/** Calls `visit` for every document, by slot. */
export function forEachDocument(index: Bm25Index, visit: (slot: number, id: string) => void): void {
  const count = slotCount(index);
  for (let slot = 0; slot < count; slot += 1) {
    const id = idAt(index, slot);
    if (id !== undefined) visit(slot, id);
  }
}

/** How many documents hold term `termId`. */
export function documentFrequencyOf(index: Bm25Index, termId: number): number {
  const base = index.base;
  const packed =
    base && termId < base.postings.offsets.length - 1 ? base.postings.offsets[termId + 1]! - base.postings.offsets[termId]! - base.removedPerTerm[termId]! : 0;
  return packed + (index.added[termId]?.length ?? 0) / 2;
}

/** How many documents of `index` contain `term`. */
export function documentFrequency(index: Bm25Index, term: string): number {
  const id = termIdOf(index, term);
  return id === undefined ? 0 : documentFrequencyOf(index, id);
}

/** Calls `visit` for every document holding term `termId`. */
export function forEachPosting(index: Bm25Index, termId: number, visit: (slot: number, weight: number) => void): void {
  const base = index.base;
  if (base && termId < base.postings.offsets.length - 1) {
    const { offsets, values, weights } = base.postings;
    for (let entry = offsets[termId]!; entry < offsets[termId + 1]!; entry += 1) if (!base.removed[values[entry]!]) visit(values[entry]!, weights[entry]!);
  }
  const added = index.added[termId];
  if (added) for (let entry = 0; entry < added.length; entry += 2) visit(added[entry]!, added[entry + 1]!);
}

/** The slots of the documents of `index` that contain `term`. */
export function slotsWithTerm(index: Bm25Index, term: string): number[] {
  const id = termIdOf(index, term);
  const slots: number[] = [];
  if (id !== undefined) forEachPosting(index, id, (slot) => slots.push(slot));
  return slots;
}

/** The ids of the documents of `index` that contain `term`. */
export function documentsWithTerm(index: Bm25Index, term: string): string[] {
  return slotsWithTerm(index, term).flatMap((slot) => idAt(index, slot) ?? []);
}

/** Document `slot`'s distinct term ids and weights: `terms`/`weights[start .. end]`. */
export function documentTermsOf(index: Bm25Index, slot: number): { terms: Int32Array; weights: Uint16Array; start: number; end: number } {
  const base = index.base;
  if (base && slot < base.count) {
    const { offsets, values, weights } = base.documents;
    return { terms: values, weights, start: offsets[slot]!, end: offsets[slot + 1]! };
  }
  const pool = index.pool;
  return { terms: pool.terms, weights: pool.weights, start: pool.starts[slot] ?? 0, end: pool.ends[slot] ?? 0 };
}

/** Copies the terms of the live documents added since the base into a pool of `capacity` entries. */
function compactPool(index: Bm25Index, capacity: number): void {
  const old = index.pool;
  const pool = emptyPool(capacity);
  const first = index.base?.count ?? 0;
  for (let slot = first; slot < first + index.ids.length; slot += 1) {
    if (index.ids[slot - first] === undefined) continue;
    const start = old.starts[slot]!;
    const end = old.ends[slot]!;
    pool.terms.set(old.terms.subarray(start, end), pool.used);
    pool.weights.set(old.weights.subarray(start, end), pool.used);
    pool.starts[slot] = pool.used;
    pool.used += end - start;
    pool.ends[slot] = pool.used;
  }
  index.pool = pool;
}

/** Removes document `id` from the index if present. */
export function removeDocument(index: Bm25Index, id: string): void {
  const slot = slotOf(index, id);
  if (slot === undefined) return;
  const { terms, start, end } = documentTermsOf(index, slot);
  const base = index.base;
  if (base && slot < base.count) {
    // Base postings stay as packed: the slot is marked, and its terms count one document fewer.
    base.removed[slot] = 1;
    base.removedCount += 1;
    for (let entry = start; entry < end; entry += 1) base.removedPerTerm[terms[entry]!]! += 1;
  } else {
    for (let entry = start; entry < end; entry += 1) {
      const posting = index.added[terms[entry]!]!;
      const last = posting.length - 2;
      let position = 0;
      while (position <= last && posting[position] !== slot) position += 2;
      if (position > last) continue;
      posting[position] = posting[last]!;
      posting[position + 1] = posting[last + 1]!;
      posting.length = last;
    }
    index.pool.garbage += end - start;
    index.freeSlots.push(slot);
  }
  index.totalLength -= index.lengths[slot]!;
  if (!base || slot >= base.count) {
    index.slots.delete(id);
    index.ids[slot - (base?.count ?? 0)] = undefined;
  }
  const pool = index.pool;
  if (pool.garbage > COMPACT_AFTER && pool.garbage * 2 > pool.used) compactPool(index, Math.max(64, 2 * (pool.used - pool.garbage)));
}

function termIdFor(index: Bm25Index, term: string): number {
  let id = termIdOf(index, term);
  if (id === undefined) {
    id = termCount(index);
    index.termIds.set(term, id);
    index.terms.push(term);
    index.added.push(undefined);
  }
  return id;
}

/**
 * Adds (or replaces) document `id`: its already-normalized content terms, and the terms it is also
 * found by (summary, tags). Its length is all of them; the content ones are marked for overlap checks.
 */
export function addDocument(index: Bm25Index, id: string, contentTerms: readonly string[], extraTerms: readonly string[] = []): void {
  removeDocument(index, id);
  const slot = index.freeSlots.pop() ?? slotCount(index);
  const weights = new Map<number, number>();
  for (const term of contentTerms) {
    const termId = termIdFor(index, term);
    weights.set(termId, Math.min(TERM_COUNT_MASK, ((weights.get(termId) ?? 0) & TERM_COUNT_MASK) + 1) | CONTENT_TERM);
  }
  for (const term of extraTerms) {
    const termId = termIdFor(index, term);
    const weight = weights.get(termId) ?? 0;
    weights.set(termId, Math.min(TERM_COUNT_MASK, (weight & TERM_COUNT_MASK) + 1) | (weight & CONTENT_TERM));
  }
  if (index.pool.used + weights.size > index.pool.terms.length) {
    compactPool(index, Math.max(64, 2 * (index.pool.used - index.pool.garbage + weights.size)));
  }
  const pool = index.pool;
  pool.starts[slot] = pool.used;
  for (const [termId, weight] of weights) {
    (index.added[termId] ??= []).push(slot, weight);
    pool.terms[pool.used] = termId;
    pool.weights[pool.used] = weight;
    pool.used += 1;
  }
  pool.ends[slot] = pool.used;
  const length = contentTerms.length + extraTerms.length;
  index.ids[slot - (index.base?.count ?? 0)] = id;
  index.slots.set(id, slot);
  index.lengths[slot] = length;
  index.totalLength += length;
}
