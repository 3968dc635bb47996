/**
 * A BM25 index as flat arrays, for snapshots: documents in order (ids, lengths, terms) and every
 * term's posting back to back, the ids in one string. Unpacking takes the arrays as they are as the
 * index's base — no pass over the postings, no object per document — so opening an index costs a
 * map entry per term and checks over flat arrays.
 */
import {
  type Bm25Index,
  createBm25Index,
  documentFrequencyOf,
  documentTermsOf,
  forEachDocument,
  forEachPosting,
  type Packed,
  type PackedIds,
  slotCount,
} from './bm25-index.js';

export interface PackedBm25 {
  /** term id → term; only terms some document holds, numbered afresh. */
  terms: string[];
  /** Document ids in order: packed document `i` is slot `i` once unpacked. */
  ids: PackedIds;
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
  const dense = new Int32Array(slotCount(index)).fill(-1);
  forEachDocument(index, (slot, id) => {
    dense[slot] = ids.length;
    ids.push(id);
    lengths.push(index.lengths[slot]!);
    slotOf.push(slot);
  });
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
  return { terms, ids: packIds(ids), lengths: Int32Array.from(lengths), postings, documents, slotOf };
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `ids` in one string, with their positions sorted by id (as `<` compares strings: by code units). */
export function packIds(ids: readonly string[]): PackedIds {
  const offsets = new Int32Array(ids.length + 1);
  ids.forEach((id, position) => (offsets[position + 1] = offsets[position]! + id.length));
  const order = Int32Array.from(ids.keys()).sort((a, b) => byCodeUnits(ids[a]!, ids[b]!));
  return { text: ids.join(''), offsets, order };
}

/** Throws unless `ids` holds `count` ids and `order` lists each once, strictly by id (no two equal). */
function checkIds(ids: PackedIds, count: number): void {
  const { text, offsets, order } = ids;
  if (offsets.length !== count + 1 || order.length !== count || offsets[0] !== 0 || offsets[count] !== text.length) {
    throw new RangeError('packed index: ids do not fit');
  }
  for (let slot = 0; slot < count; slot += 1) if (offsets[slot + 1]! < offsets[slot]!) throw new RangeError('packed index: ids out of order');
  const seen = new Uint8Array(count);
  for (let position = 0; position < count; position += 1) {
    const slot = order[position]!;
    if (!(slot >= 0 && slot < count) || seen[slot]) throw new RangeError('packed index: id order is not a permutation');
    seen[slot] = 1;
    if (position > 0 && compareIds(ids, order[position - 1]!, slot) >= 0) throw new RangeError('packed index: ids unsorted or repeated');
  }
}

/** Compares ids `a` and `b` of `ids` by code units, without making strings. */
function compareIds({ text, offsets }: PackedIds, a: number, b: number): number {
  const startA = offsets[a]!;
  const startB = offsets[b]!;
  const lengthA = offsets[a + 1]! - startA;
  const lengthB = offsets[b + 1]! - startB;
  const shorter = Math.min(lengthA, lengthB);
  for (let position = 0; position < shorter; position += 1) {
    const difference = text.charCodeAt(startA + position) - text.charCodeAt(startB + position);
    if (difference !== 0) return difference;
  }
  return lengthA - lengthB;
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
  checkIds(ids, count);
  checkPacked(postings, terms.length, 'postings');
  checkPacked(documents, count, 'documents');
  if (postings.values.length !== documents.values.length) throw new RangeError('packed index: postings and documents disagree');
  const index = createBm25Index();
  index.terms = terms;
  for (let term = 0; term < terms.length; term += 1) index.termIds.set(terms[term]!, term);
  index.added = new Array<number[] | undefined>(terms.length).fill(undefined);
  index.base = { count, postings, documents, removed: new Uint8Array(count), removedPerTerm: new Int32Array(terms.length), removedCount: 0, ids };
  index.lengths = Array.from(lengths);
  for (let slot = 0; slot < count; slot += 1) index.totalLength += lengths[slot]!;
  return index;
}
