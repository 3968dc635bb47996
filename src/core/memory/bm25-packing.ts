/**
 * A BM25 index as flat arrays, for snapshots: documents in order (ids, lengths, terms) and every
 * term's posting back to back. Unpacking takes the arrays as they are as the index's base — no pass
 * over the postings — so opening an index costs a map entry per term and per document.
 */
import { type Bm25Index, createBm25Index, documentFrequencyOf, documentTermsOf, forEachPosting, type Packed } from './bm25-index.js';

export interface PackedBm25 {
  /** term id → term; only terms some document holds, numbered afresh. */
  terms: string[];
  /** Document ids in order: packed document `i` is slot `i` once unpacked. */
  ids: string[];
  lengths: Int32Array;
  /** By term: the slots of the documents holding it. */
  postings: Packed;
  /** By document: its term ids. */
  documents: Packed;
}

/** Packs `index`, leaving out free slots and terms no document holds any more. `slotOf[i]` is packed document `i`'s slot. */
export function packBm25(index: Bm25Index): PackedBm25 & { slotOf: number[] } {
  const ids: string[] = [];
  const lengths: number[] = [];
  const slotOf: number[] = [];
  const dense = new Int32Array(index.ids.length).fill(-1);
  for (let slot = 0; slot < index.ids.length; slot += 1) {
    const id = index.ids[slot];
    if (id === undefined) continue;
    dense[slot] = ids.length;
    ids.push(id);
    lengths.push(index.lengths[slot]!);
    slotOf.push(slot);
  }
  const terms: string[] = [];
  const renumbered = new Int32Array(index.terms.length).fill(-1);
  const postingOffsets: number[] = [0];
  let total = 0;
  for (let term = 0; term < index.terms.length; term += 1) total += documentFrequencyOf(index, term);
  const postings: Packed = { offsets: new Int32Array(0), values: new Int32Array(total), weights: new Uint16Array(total) };
  let position = 0;
  for (let term = 0; term < index.terms.length; term += 1) {
    if (documentFrequencyOf(index, term) === 0) continue;
    forEachPosting(index, term, (slot, weight) => {
      postings.values[position] = dense[slot]!;
      postings.weights[position] = weight;
      position += 1;
    });
    renumbered[term] = terms.length;
    terms.push(index.terms[term]!);
    postingOffsets.push(position);
  }
  postings.offsets = Int32Array.from(postingOffsets);
  const documents: Packed = { offsets: new Int32Array(ids.length + 1), values: new Int32Array(total), weights: new Uint16Array(total) };
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
  return { terms, ids, lengths: Int32Array.from(lengths), postings, documents, slotOf };
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
  if (lengths.length !== ids.length) throw new RangeError('packed index: lengths do not fit');
  checkPacked(postings, terms.length, 'postings');
  checkPacked(documents, ids.length, 'documents');
  if (postings.values.length !== documents.values.length) throw new RangeError('packed index: postings and documents disagree');
  const index = createBm25Index();
  index.terms = terms;
  for (let term = 0; term < terms.length; term += 1) index.termIds.set(terms[term]!, term);
  index.added = new Array<number[] | undefined>(terms.length).fill(undefined);
  index.base = { count: ids.length, postings, documents, removed: new Uint8Array(ids.length), removedPerTerm: new Int32Array(terms.length) };
  index.ids = ids.slice();
  index.lengths = Array.from(lengths);
  for (let slot = 0; slot < ids.length; slot += 1) {
    index.slots.set(ids[slot]!, slot);
    index.totalLength += lengths[slot]!;
  }
  if (index.slots.size !== ids.length) throw new RangeError('packed index: duplicate document ids');
  return index;
}
