/**
 * Okapi BM25 over in-process inverted indexes. Pure data structures: the memory store keeps one
 * index per scope, updates it on every write, and searches several indexes as one collection.
 */

export interface Bm25Document {
  terms: Map<string, number>;
  length: number;
}

export interface Bm25Index {
  documents: Map<string, Bm25Document>;
  /** term → document id → term frequency. */
  postings: Map<string, Map<string, number>>;
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
  return { documents: new Map(), postings: new Map(), totalLength: 0 };
}

/** Removes document `id` from the index if present. */
export function removeDocument(index: Bm25Index, id: string): void {
  const document = index.documents.get(id);
  if (!document) return;
  for (const term of document.terms.keys()) {
    const posting = index.postings.get(term);
    posting?.delete(id);
    if (posting && posting.size === 0) index.postings.delete(term);
  }
  index.totalLength -= document.length;
  index.documents.delete(id);
}

/** Adds (or replaces) document `id` with its already-normalized `terms`. */
export function addDocument(index: Bm25Index, id: string, terms: readonly string[]): void {
  removeDocument(index, id);
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  index.documents.set(id, { terms: counts, length: terms.length });
  index.totalLength += terms.length;
  for (const [term, count] of counts) {
    let posting = index.postings.get(term);
    if (!posting) {
      posting = new Map();
      index.postings.set(term, posting);
    }
    posting.set(id, count);
  }
}

/** Scores the documents of all `indexes` (as one collection) against `queryTerms`, best first. */
export function searchBm25(indexes: readonly Bm25Index[], queryTerms: readonly string[], limit: number): Bm25Hit[] {
  const documentCount = indexes.reduce((sum, index) => sum + index.documents.size, 0);
  if (documentCount === 0 || queryTerms.length === 0 || limit <= 0) return [];
  const averageLength = Math.max(1, indexes.reduce((sum, index) => sum + index.totalLength, 0) / documentCount);
  const scores = new Map<string, number>();
  for (const term of new Set(queryTerms)) {
    const frequency = indexes.reduce((sum, index) => sum + (index.postings.get(term)?.size ?? 0), 0);
    if (frequency === 0) continue;
    const idf = Math.log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5));
    for (const index of indexes) {
      const posting = index.postings.get(term);
      if (!posting) continue;
      for (const [id, termFrequency] of posting) {
        const length = index.documents.get(id)?.length ?? averageLength;
        const norm = termFrequency + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * termFrequency * (BM25_K1 + 1)) / norm);
      }
    }
  }
  return topHits(scores, limit);
}

const better = (a: Bm25Hit, b: Bm25Hit): boolean => a.score > b.score || (a.score === b.score && a.id < b.id);

/** The `limit` best hits, best first, without sorting every scored document. */
function topHits(scores: Map<string, number>, limit: number): Bm25Hit[] {
  const top: Bm25Hit[] = [];
  for (const [id, score] of scores) {
    const hit = { id, score };
    const last = top[top.length - 1];
    if (top.length >= limit && last && !better(hit, last)) continue;
    let position = top.length;
    while (position > 0 && better(hit, top[position - 1]!)) position -= 1;
    top.splice(position, 0, hit);
    if (top.length > limit) top.pop();
  }
  return top;
}
