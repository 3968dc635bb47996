/**
 * Okapi BM25 over in-process inverted indexes. Pure data structures: the memory store keeps one
 * index per scope, updates it on every write, and searches several indexes as one collection.
 * Documents live in numbered slots, so scoring adds into a typed array instead of a map of ids.
 */

export interface Bm25Document {
  slot: number;
  /** Its distinct terms (to leave their postings on removal). */
  terms: string[];
  length: number;
}

export interface Bm25Index {
  documents: Map<string, Bm25Document>;
  /** term → document slot → term frequency. */
  postings: Map<string, Map<number, number>>;
  /** slot → document id (undefined for a free slot). */
  ids: (string | undefined)[];
  /** slot → document length. */
  lengths: number[];
  freeSlots: number[];
  totalLength: number;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/** Standard BM25 parameters: term-frequency saturation and length normalization. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export function createBm25Index(): Bm25Index {
  return { documents: new Map(), postings: new Map(), ids: [], lengths: [], freeSlots: [], totalLength: 0 };
}

/** Removes document `id` from the index if present. */
export function removeDocument(index: Bm25Index, id: string): void {
  const document = index.documents.get(id);
  if (!document) return;
  for (const term of document.terms) {
    const posting = index.postings.get(term);
    posting?.delete(document.slot);
    if (posting && posting.size === 0) index.postings.delete(term);
  }
  index.totalLength -= document.length;
  index.documents.delete(id);
  index.ids[document.slot] = undefined;
  index.freeSlots.push(document.slot);
}

/** Adds (or replaces) document `id` with its already-normalized `terms`. */
export function addDocument(index: Bm25Index, id: string, terms: readonly string[]): void {
  removeDocument(index, id);
  const slot = index.freeSlots.pop() ?? index.ids.length;
  index.ids[slot] = id;
  index.lengths[slot] = terms.length;
  index.totalLength += terms.length;
  const distinct: string[] = [];
  for (const term of terms) {
    let posting = index.postings.get(term);
    if (!posting) {
      posting = new Map();
      index.postings.set(term, posting);
    }
    const count = posting.get(slot);
    if (count === undefined) distinct.push(term);
    posting.set(slot, (count ?? 0) + 1);
  }
  index.documents.set(id, { slot, terms: distinct, length: terms.length });
}

/** How many documents of `index` contain `term`. */
export function documentFrequency(index: Bm25Index, term: string): number {
  return index.postings.get(term)?.size ?? 0;
}

/** The ids of the documents of `index` that contain `term`. */
export function* documentsWithTerm(index: Bm25Index, term: string): Iterable<string> {
  for (const slot of index.postings.get(term)?.keys() ?? []) {
    const id = index.ids[slot];
    if (id !== undefined) yield id;
  }
}

/** Scores the documents of all `indexes` (as one collection) against `queryTerms`, best first. */
export function searchBm25(indexes: readonly Bm25Index[], queryTerms: readonly string[], limit: number): Bm25Hit[] {
  const documentCount = indexes.reduce((sum, index) => sum + index.documents.size, 0);
  if (documentCount === 0 || queryTerms.length === 0 || limit <= 0) return [];
  const averageLength = Math.max(1, indexes.reduce((sum, index) => sum + index.totalLength, 0) / documentCount);
  const terms = [...new Set(queryTerms)];
  const idfs = terms.map((term) => {
    const frequency = indexes.reduce((sum, index) => sum + documentFrequency(index, term), 0);
    return frequency === 0 ? 0 : Math.log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5));
  });
  const top: Bm25Hit[] = [];
  for (const index of indexes) {
    const scores = new Float64Array(index.ids.length);
    const touched: number[] = [];
    terms.forEach((term, position) => {
      const idf = idfs[position]!;
      const posting = index.postings.get(term);
      if (!posting || idf === 0) return;
      for (const [slot, termFrequency] of posting) {
        const norm = termFrequency + BM25_K1 * (1 - BM25_B + (BM25_B * index.lengths[slot]!) / averageLength);
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += (idf * termFrequency * (BM25_K1 + 1)) / norm;
      }
    });
    for (const slot of touched) offer(top, { id: index.ids[slot]!, score: scores[slot]! }, limit);
  }
  return top;
}

const better = (a: Bm25Hit, b: Bm25Hit): boolean => a.score > b.score || (a.score === b.score && a.id < b.id);

/** Keeps `top` the `limit` best hits, best first, without sorting every scored document. */
function offer(top: Bm25Hit[], hit: Bm25Hit, limit: number): void {
  const last = top[top.length - 1];
  if (top.length >= limit && last && !better(hit, last)) return;
  let position = top.length;
  while (position > 0 && better(hit, top[position - 1]!)) position -= 1;
  top.splice(position, 0, hit);
  if (top.length > limit) top.pop();
}
