/**
 * Okapi BM25 over in-process inverted indexes (`bm25-index.ts`). The memory store keeps one index
 * per scope, updates it on every write, and searches several indexes as one collection; scores add
 * into a scratch array kept with each index.
 */
import { type Bm25Index, documentCount, documentFrequency, idAt, slotCount, TERM_COUNT_MASK, termIdOf } from './bm25-index.js';

export interface Bm25Hit {
  id: string;
  score: number;
}

/** Standard BM25 parameters: term-frequency saturation and length normalization. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

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
    const slots = slotCount(index);
    if (!index.scratch || index.scratch.scores.length < slots) {
      const size = Math.max(64, slots * 2);
      index.scratch = { scores: new Float64Array(size), touched: new Int32Array(size) };
    }
    const { scores, touched } = index.scratch;
    let touchedCount = 0;
    terms.forEach((term, position) => {
      const idf = idfs[position]!;
      const termId = termIdOf(index, term);
      if (termId === undefined || idf === 0) return;
      const add = (slot: number, weight: number): void => {
        const termFrequency = weight & TERM_COUNT_MASK;
        const norm = termFrequency + BM25_K1 * (1 - BM25_B + (BM25_B * index.lengths[slot]!) / averageLength);
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += (idf * termFrequency * (BM25_K1 + 1)) / norm;
      };
      // Plain loops rather than `forEachPosting`: this is the hot path of every recall.
      const base = index.base;
      if (base && termId < base.postings.offsets.length - 1) {
        const { offsets, values, weights } = base.postings;
        for (let entry = offsets[termId]!; entry < offsets[termId + 1]!; entry += 1) if (!base.removed[values[entry]!]) add(values[entry]!, weights[entry]!);
      }
      const added = index.added[termId];
      if (added) for (let entry = 0; entry < added.length; entry += 2) add(added[entry]!, added[entry + 1]!);
    });
    for (let position = 0; position < touchedCount; position += 1) {
      const slot = touched[position]!;
      const score = scores[slot]!;
      scores[slot] = 0;
      // The id is looked up only for a hit that may enter the top (a base id is sliced from one string).
      const last = top[top.length - 1];
      if (top.length >= limit && last && score < last.score) continue;
      offer(top, idAt(index, slot)!, score, limit);
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
