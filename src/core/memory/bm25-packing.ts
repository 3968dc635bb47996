/**
 * A BM25 index as flat arrays, for snapshots: documents in id order (ids, lengths, terms) and every
 * term's postings back to back in term order; the ids and the terms each in one string. Unpacking
 * takes the arrays as they are as the index's base — no pass over the postings, no object or map
 * entry per document or term — so opening an index costs one check over its ids and terms.
 */
import {
  type Bm25Index,
  createBm25Index,
  documentFrequencyOf,
  documentTermsOf,
  forEachDocument,
  forEachPosting,
  type Packed,
  slotCount,
  termAt,
  termCount,
} from './bm25-index.js';
import { checkSorted, joinStrings, type SortedStrings } from './sorted-strings.js';

export interface PackedBm25 {
  /** Term id → term: only terms some document holds, numbered afresh in term order. */
  terms: SortedStrings;
  /** Document ids in id order: packed document `i` is slot `i` once unpacked. */
  ids: SortedStrings;
  lengths: Int32Array;
  /** By term: the slots of the documents holding it. */
  postings: Packed;
  /** By document: its term ids. */
  documents: Packed;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Packs `index`, leaving out free slots and terms no document holds any more. `slotOf[i]` is packed document `i`'s slot. */
export function packBm25(index: Bm25Index): PackedBm25 & { slotOf: number[] } {
  const documentsById: { id: string; slot: number }[] = [];
  forEachDocument(index, (slot, id) => documentsById.push({ id, slot }));
  documentsById.sort((a, b) => byCodeUnits(a.id, b.id));
  const slotOf = documentsById.map((document) => document.slot);
  const dense = new Int32Array(slotCount(index)).fill(-1);
  slotOf.forEach((slot, packed) => (dense[slot] = packed));
  const liveTerms: { term: string; id: number }[] = [];
  for (let term = 0; term < termCount(index); term += 1) if (documentFrequencyOf(index, term) > 0) liveTerms.push({ term: termAt(index, term), id: term });
  liveTerms.sort((a, b) => byCodeUnits(a.term, b.term));
  const renumbered = new Int32Array(termCount(index)).fill(-1);
  let total = 0;
  for (const { id } of liveTerms) total += documentFrequencyOf(index, id);
  const postings: Packed = { offsets: new Int32Array(liveTerms.length + 1), values: new Int32Array(total), weights: new Uint16Array(total) };
  let position = 0;
  liveTerms.forEach(({ id }, packed) => {
    forEachPosting(index, id, (slot, weight) => {
      postings.values[position] = dense[slot]!;
      postings.weights[position] = weight;
      position += 1;
    });
    renumbered[id] = packed;
    postings.offsets[packed + 1] = position;
  });
  const documents: Packed = { offsets: new Int32Array(slotOf.length + 1), values: new Int32Array(total), weights: new Uint16Array(total) };
  position = 0;
  slotOf.forEach((slot, packed) => {
    const { terms: termIds, weights, start, end } = documentTermsOf(index, slot);
    for (let entry = start; entry < end; entry += 1) {
      documents.values[position] = renumbered[termIds[entry]!]!;
      documents.weights[position] = weights[entry]!;
      position += 1;
    }
    documents.offsets[packed + 1] = position;
  });
  return {
    terms: joinStrings(liveTerms.map((entry) => entry.term)),
    ids: joinStrings(documentsById.map((document) => document.id)),
    lengths: Int32Array.from(slotOf, (slot) => index.lengths[slot]!),
    postings,
    documents,
    slotOf,
  };
}

function checkPacked(packed: Packed, keys: number, name: string): void {
  const { offsets, values, weights } = packed;
  if (offsets.length !== keys + 1 || values.length !== weights.length || offsets[0] !== 0 || offsets[keys] !== values.length) {
    throw new RangeError(`packed index: ${name} do not fit`);
  }
  for (let key = 0; key < keys; key += 1) if (offsets[key + 1]! < offsets[key]!) throw new RangeError(`packed index: ${name} out of order`);
}

/**
 * Opens an index whose base is `packed` (the arrays are kept, never changed); throws `RangeError`
 * when the arrays do not fit together.
 */
export function unpackBm25(packed: PackedBm25): Bm25Index {
  const { terms, ids, lengths, postings, documents } = packed;
  const count = lengths.length;
  const termTotal = terms.offsets.length - 1;
  checkSorted(ids, count, 'ids');
  checkSorted(terms, termTotal, 'terms');
  checkPacked(postings, termTotal, 'postings');
  checkPacked(documents, count, 'documents');
  if (postings.values.length !== documents.values.length) throw new RangeError('packed index: postings and documents disagree');
  const index = createBm25Index();
  index.added = new Array<number[] | undefined>(termTotal).fill(undefined);
  index.base = { count, postings, documents, removed: new Uint8Array(count), removedPerTerm: new Int32Array(termTotal), removedCount: 0, ids, terms };
  index.lengths = Array.from(lengths);
  for (let slot = 0; slot < count; slot += 1) index.totalLength += lengths[slot]!;
  return index;
}
