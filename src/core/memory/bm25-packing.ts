/**
 * A BM25 index as a few flat arrays, for snapshots: documents in order (ids, lengths) and every
 * term's posting back to back. Unpacking takes the arrays as they are (no pass over the postings),
 * so opening an index costs a map entry per term and per document.
 */
import { type Bm25Index, createBm25Index, documentFrequencyOf } from './bm25.js';

export interface PackedBm25 {
  /** term id → term; only terms some document holds, numbered afresh. */
  terms: string[];
  /** Document ids in order: packed document `i` is slot `i` once unpacked. */
  ids: string[];
  lengths: Int32Array;
  /** Term `t`'s posting is `slots`/`weights[offsets[t] .. offsets[t + 1]]`. */
  offsets: Int32Array;
  slots: Int32Array;
  /** Count | `CONTENT_TERM`, parallel to `slots`. */
  weights: Uint16Array;
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
  const offsets: number[] = [0];
  let total = 0;
  for (let term = 0; term < index.terms.length; term += 1) total += documentFrequencyOf(index, term);
  const slots = new Int32Array(total);
  const weights = new Uint16Array(total);
  let position = 0;
  for (let term = 0; term < index.terms.length; term += 1) {
    if (documentFrequencyOf(index, term) === 0) continue;
    const posting = index.postings[term];
    if (posting) {
      for (let entry = 0; entry < posting.length; entry += 2) {
        slots[position] = dense[posting[entry]!]!;
        weights[position] = posting[entry + 1]!;
        position += 1;
      }
    } else if (index.base) {
      // Untouched since unpacking: its stretch of the packed arrays, slots renumbered.
      const { offsets, slots: baseSlots, weights: baseWeights } = index.base;
      for (let entry = offsets[term]!; entry < offsets[term + 1]!; entry += 1) {
        slots[position] = dense[baseSlots[entry]!]!;
        weights[position] = baseWeights[entry]!;
        position += 1;
      }
    }
    terms.push(index.terms[term]!);
    offsets.push(position);
  }
  return { terms, ids, lengths: Int32Array.from(lengths), offsets: Int32Array.from(offsets), slots, weights, slotOf };
}

/**
 * Opens an index over `packed`, which it keeps (do not change the arrays afterwards); throws
 * `RangeError` when the arrays do not fit together.
 */
export function unpackBm25(packed: PackedBm25): Bm25Index {
  const { terms, ids, lengths, offsets, slots, weights } = packed;
  if (lengths.length !== ids.length || offsets.length !== terms.length + 1 || slots.length !== weights.length) {
    throw new RangeError('packed index: array sizes disagree');
  }
  if (offsets[0] !== 0 || offsets[terms.length] !== slots.length) throw new RangeError('packed index: bad offsets');
  for (let term = 0; term < terms.length; term += 1) if (offsets[term + 1]! < offsets[term]!) throw new RangeError('packed index: bad offsets');
  const index = createBm25Index();
  index.terms = terms;
  for (let term = 0; term < terms.length; term += 1) index.termIds.set(terms[term]!, term);
  index.postings = new Array<number[] | undefined>(terms.length).fill(undefined);
  index.base = { offsets, slots, weights };
  index.ids = ids.slice();
  index.lengths = Array.from(lengths);
  for (let slot = 0; slot < ids.length; slot += 1) {
    index.slots.set(ids[slot]!, slot);
    index.totalLength += lengths[slot]!;
  }
  if (index.slots.size !== ids.length) throw new RangeError('packed index: duplicate document ids');
  return index;
}
