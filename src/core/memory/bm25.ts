/**
 * Okapi BM25 over in-process inverted indexes. Pure data structures: the memory store keeps one
 * index per scope, updates it on every write, and searches several indexes as one collection.
 * Documents live in numbered slots and terms have numeric ids; scores add into a typed array. An
 * index opened from a snapshot (`bm25-packing.ts`) keeps the packed postings as they are and turns
 * a term's posting into an array only when it is used; each document's own term list (to remove
 * it, and for duplicate checks) is derived from the postings the first time it is needed.
 */

export interface Bm25Index {
  /** term → term id. Ids are never reused while the index lives (a packed index renumbers them). */
  termIds: Map<string, number>;
  /** term id → term. */
  terms: string[];
  /**
   * term id → `[slot, weight, slot, weight, …]` of the documents holding it, in no order; undefined
   * while the term's posting is only in `base`. A weight is the term's count, | `CONTENT_TERM`.
   */
  postings: (number[] | undefined)[];
  /** Packed postings: term `t` at `slots`/`weights[offsets[t] .. offsets[t + 1]]`. */
  base?: { offsets: Int32Array; slots: Int32Array; weights: Uint16Array };
  /** slot → document id (undefined for a free slot). */
  ids: (string | undefined)[];
  /** document id → slot. */
  slots: Map<string, number>;
  /** slot → document length in terms. */
  lengths: number[];
  /** Each document's distinct term ids and weights, built on first use (see `documentTermsOf`). */
  forward?: ForwardIndex;
  freeSlots: number[];
  totalLength: number;
  /** Reused by searches: scores by slot (all zero between searches) and the slots touched. */
  scratch?: { scores: Float64Array; touched: Int32Array };
}

/** Slot `s` holds `terms`/`weights[starts[s] .. ends[s]]`; removed documents leave garbage until compacted. */
export interface ForwardIndex {
  terms: Int32Array;
  weights: Uint16Array;
  used: number;
  garbage: number;
  starts: number[];
  ends: number[];
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/** Standard BM25 parameters: term-frequency saturation and length normalization. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Set in a weight when the term occurs in the document's content (not only in its summary or tags). */
export const CONTENT_TERM = 0x8000;
/** The count part of a weight (counts above it are capped; a fact holds ≤ 4,000 characters). */
export const TERM_COUNT_MASK = 0x7fff;
/** Garbage in the forward pool above which (and above half of it) the pool is compacted. */
const COMPACT_AFTER = 4_096;

export function createBm25Index(): Bm25Index {
  return { termIds: new Map(), terms: [], postings: [], ids: [], slots: new Map(), lengths: [], freeSlots: [], totalLength: 0 };
}

/** How many documents `index` holds. */
export function documentCount(index: Bm25Index): number {
  return index.slots.size;
}

/** The posting of term `termId` as an array, taken out of `base` the first time. */
export function postingOf(index: Bm25Index, termId: number): number[] {
  let posting = index.postings[termId];
  if (posting) return posting;
  posting = [];
  const base = index.base;
  if (base && termId < base.offsets.length - 1) {
    for (let entry = base.offsets[termId]!; entry < base.offsets[termId + 1]!; entry += 1) posting.push(base.slots[entry]!, base.weights[entry]!);
  }
  index.postings[termId] = posting;
  return posting;
}

/** Calls `visit` for every entry of term `termId`'s posting (array or packed). */
export function forEachPosting(index: Bm25Index, termId: number, visit: (slot: number, weight: number) => void): void {
  const posting = index.postings[termId];
  if (posting) {
    for (let entry = 0; entry < posting.length; entry += 2) visit(posting[entry]!, posting[entry + 1]!);
    return;
  }
  const base = index.base;
  if (!base || termId >= base.offsets.length - 1) return;
  for (let entry = base.offsets[termId]!; entry < base.offsets[termId + 1]!; entry += 1) visit(base.slots[entry]!, base.weights[entry]!);
}

function createForward(index: Bm25Index, capacity: number): ForwardIndex {
  const forward: ForwardIndex = { terms: new Int32Array(capacity), weights: new Uint16Array(capacity), used: 0, garbage: 0, starts: [], ends: [] };
  if (!index.forward) {
    // Derived from the postings: count the terms of each slot, then place them.
    const sizes = new Int32Array(index.ids.length);
    for (let term = 0; term < index.terms.length; term += 1) forEachPosting(index, term, (slot) => (sizes[slot]! += 1));
    const next = new Int32Array(index.ids.length);
    for (let slot = 0; slot < index.ids.length; slot += 1) {
      next[slot] = forward.used;
      forward.starts[slot] = forward.used;
      forward.used += sizes[slot]!;
      forward.ends[slot] = forward.used;
    }
    for (let term = 0; term < index.terms.length; term += 1) {
      forEachPosting(index, term, (slot, weight) => {
        const at = next[slot]!++;
        forward.terms[at] = term;
        forward.weights[at] = weight;
      });
    }
    return forward;
  }
  const old = index.forward;
  for (let slot = 0; slot < index.ids.length; slot += 1) {
    if (index.ids[slot] === undefined) continue;
    const start = old.starts[slot]!;
    const end = old.ends[slot]!;
    forward.terms.set(old.terms.subarray(start, end), forward.used);
    forward.weights.set(old.weights.subarray(start, end), forward.used);
    forward.starts[slot] = forward.used;
    forward.used += end - start;
    forward.ends[slot] = forward.used;
  }
  return forward;
}

/** The forward index, built from the postings the first time. */
export function forwardOf(index: Bm25Index): ForwardIndex {
  if (!index.forward) {
    let total = 0;
    for (let term = 0; term < index.terms.length; term += 1) total += documentFrequencyOf(index, term);
    index.forward = createForward(index, Math.max(64, Math.ceil(total * 1.25)));
  }
  return index.forward;
}

/** Removes document `id` from the index if present. */
export function removeDocument(index: Bm25Index, id: string): void {
  const slot = index.slots.get(id);
  if (slot === undefined) return;
  const forward = forwardOf(index);
  const start = forward.starts[slot]!;
  const end = forward.ends[slot]!;
  for (let entry = start; entry < end; entry += 1) {
    const posting = postingOf(index, forward.terms[entry]!);
    const last = posting.length - 2;
    let position = 0;
    while (position <= last && posting[position] !== slot) position += 2;
    if (position > last) continue;
    posting[position] = posting[last]!;
    posting[position + 1] = posting[last + 1]!;
    posting.length = last;
  }
  index.totalLength -= index.lengths[slot]!;
  index.slots.delete(id);
  index.ids[slot] = undefined;
  forward.garbage += end - start;
  index.freeSlots.push(slot);
  if (forward.garbage > COMPACT_AFTER && forward.garbage * 2 > forward.used) {
    index.forward = createForward(index, Math.max(64, 2 * (forward.used - forward.garbage)));
  }
}

function termIdFor(index: Bm25Index, term: string): number {
  let id = index.termIds.get(term);
  if (id === undefined) {
    id = index.terms.length;
    index.termIds.set(term, id);
    index.terms.push(term);
    index.postings.push([]);
  }
  return id;
}

/**
 * Adds (or replaces) document `id`: its already-normalized content terms, and the terms it is also
 * found by (summary, tags). Its length is all of them; the content ones are marked for overlap checks.
 */
export function addDocument(index: Bm25Index, id: string, contentTerms: readonly string[], extraTerms: readonly string[] = []): void {
  removeDocument(index, id);
  const slot = index.freeSlots.pop() ?? index.ids.length;
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
  let forward = index.forward;
  if (forward && forward.used + weights.size > forward.terms.length) {
    forward = index.forward = createForward(index, Math.max(64, 2 * (forward.used - forward.garbage + weights.size)));
  }
  if (forward) forward.starts[slot] = forward.used;
  for (const [termId, weight] of weights) {
    postingOf(index, termId).push(slot, weight);
    if (!forward) continue;
    forward.terms[forward.used] = termId;
    forward.weights[forward.used] = weight;
    forward.used += 1;
  }
  if (forward) forward.ends[slot] = forward.used;
  const length = contentTerms.length + extraTerms.length;
  index.ids[slot] = id;
  index.slots.set(id, slot);
  index.lengths[slot] = length;
  index.totalLength += length;
}

/** How many documents hold term `termId`. */
export function documentFrequencyOf(index: Bm25Index, termId: number): number {
  const posting = index.postings[termId];
  if (posting) return posting.length / 2;
  const offsets = index.base?.offsets;
  return offsets && termId < offsets.length - 1 ? offsets[termId + 1]! - offsets[termId]! : 0;
}

/** How many documents of `index` contain `term`. */
export function documentFrequency(index: Bm25Index, term: string): number {
  const id = index.termIds.get(term);
  return id === undefined ? 0 : documentFrequencyOf(index, id);
}

/** The slots of the documents of `index` that contain `term`. */
export function slotsWithTerm(index: Bm25Index, term: string): number[] {
  const id = index.termIds.get(term);
  const slots: number[] = [];
  if (id !== undefined) forEachPosting(index, id, (slot) => slots.push(slot));
  return slots;
}

/** The ids of the documents of `index` that contain `term`. */
export function documentsWithTerm(index: Bm25Index, term: string): string[] {
  return slotsWithTerm(index, term).flatMap((slot) => index.ids[slot] ?? []);
}

/** Scores the documents of all `indexes` (as one collection) against `queryTerms`, best first. */
export function searchBm25(indexes: readonly Bm25Index[], queryTerms: readonly string[], limit: number): Bm25Hit[] {
  const documents = indexes.reduce((sum, index) => sum + documentCount(index), 0);
  if (documents === 0 || queryTerms.length === 0 || limit <= 0) return [];
  const averageLength = Math.max(1, indexes.reduce((sum, index) => sum + index.totalLength, 0) / documents);
  const terms = [...new Set(queryTerms)];
  const idfs = terms.map((term) => {
    const frequency = indexes.reduce((sum, index) => sum + documentFrequency(index, term), 0);
    return frequency === 0 ? 0 : Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
  });
  const top: Bm25Hit[] = [];
  for (const index of indexes) {
    // Scores add into a scratch array kept with the index; the slots touched are reset afterwards.
    if (!index.scratch || index.scratch.scores.length < index.ids.length) {
      const size = Math.max(64, index.ids.length * 2);
      index.scratch = { scores: new Float64Array(size), touched: new Int32Array(size) };
    }
    const { scores, touched } = index.scratch;
    let touchedCount = 0;
    terms.forEach((term, position) => {
      const idf = idfs[position]!;
      const termId = index.termIds.get(term);
      if (termId === undefined || idf === 0) return;
      const add = (slot: number, weight: number): void => {
        const termFrequency = weight & TERM_COUNT_MASK;
        const norm = termFrequency + BM25_K1 * (1 - BM25_B + (BM25_B * index.lengths[slot]!) / averageLength);
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += (idf * termFrequency * (BM25_K1 + 1)) / norm;
      };
      // Read in place: a packed posting becomes an array only when the index changes it.
      const posting = index.postings[termId];
      if (posting) {
        for (let entry = 0; entry < posting.length; entry += 2) add(posting[entry]!, posting[entry + 1]!);
      } else if (index.base && termId < index.base.offsets.length - 1) {
        const { offsets, slots, weights } = index.base;
        for (let entry = offsets[termId]!; entry < offsets[termId + 1]!; entry += 1) add(slots[entry]!, weights[entry]!);
      }
    });
    for (let position = 0; position < touchedCount; position += 1) {
      const slot = touched[position]!;
      offer(top, index.ids[slot]!, scores[slot]!, limit);
      scores[slot] = 0;
    }
  }
  return top;
}

const better = (a: Bm25Hit, b: Bm25Hit): boolean => a.score > b.score || (a.score === b.score && a.id < b.id);

/** Keeps `top` the `limit` best hits, best first, without sorting every scored document. */
function offer(top: Bm25Hit[], id: string, score: number, limit: number): void {
  const last = top[top.length - 1];
  if (top.length >= limit && last && (score < last.score || (score === last.score && id >= last.id))) return;
  const hit = { id, score };
  let position = top.length;
  while (position > 0 && better(hit, top[position - 1]!)) position -= 1;
  top.splice(position, 0, hit);
  if (top.length > limit) top.pop();
}
