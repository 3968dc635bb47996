/**
 * Duplicate detection for a new fact: the same words (equal duplicate keys), or ≥ 90 % of their
 * distinct content terms shared. Exact, and without scoring the scope: overlap ≥ t needs ⌈t·|A|⌉
 * shared terms, so any duplicate holds one of the |A| − ⌈t·|A|⌉ + 1 rarest terms of A; only their
 * postings are read.
 */
import { CONTENT_TERM, documentFrequency, documentTermsOf, idAt, slotsWithTerm, termIdOf } from './bm25-index.js';
import type { MemoryFact } from './memory-fact.js';
import { duplicatesOf, hash53, type ScopeView } from './scope-view.js';
import { analyze, duplicateKey } from './text-normalize.js';

/** Token-set overlap (Jaccard) at which two facts count as the same. */
export const DUPLICATE_OVERLAP = 0.9;

/** The fact of the view's scope that `content` duplicates, if any; `read` gives a fact by id. */
export async function findDuplicate(view: ScopeView, content: string, read: (id: string) => Promise<MemoryFact | undefined>): Promise<MemoryFact | undefined> {
  const analysed = analyze(content);
  const exact = duplicatesOf(view).get(hash53(analysed.duplicateKey));
  if (exact) {
    // The map holds hashes: the fact's own key confirms it.
    const fact = await read(exact);
    if (fact && duplicateKey(fact.content) === analysed.duplicateKey) return fact;
  }
  const near = nearDuplicate(view, analysed.terms);
  return near === undefined ? undefined : read(near);
}

/** The id of the fact sharing the most (≥ 90 %) of `contentTerms`, ties to the smaller id. */
function nearDuplicate(view: ScopeView, contentTerms: readonly string[]): string | undefined {
  const terms = new Set(contentTerms);
  if (terms.size < 3) return undefined;
  const index = view.index;
  const needed = Math.ceil(DUPLICATE_OVERLAP * terms.size - 1e-9);
  const probes = [...terms].sort((a, b) => documentFrequency(index, a) - documentFrequency(index, b)).slice(0, terms.size - needed + 1);
  const wanted = new Set<number>();
  for (const term of terms) {
    const id = termIdOf(index, term);
    if (id !== undefined) wanted.add(id);
  }
  const checked = new Set<number>();
  let best: { id: string; overlap: number } | undefined;
  for (const term of probes) {
    for (const slot of slotsWithTerm(index, term)) {
      if (checked.has(slot)) continue;
      checked.add(slot);
      const id = idAt(index, slot);
      if (id === undefined) continue;
      let size = 0;
      let shared = 0;
      const { terms: termIds, weights, start, end } = documentTermsOf(index, slot);
      for (let entry = start; entry < end; entry += 1) {
        if ((weights[entry]! & CONTENT_TERM) === 0) continue;
        size += 1;
        if (wanted.has(termIds[entry]!)) shared += 1;
      }
      // Sizes alone rule most candidates out: |B| ≥ ⌈t·|A|⌉ and |B| ≤ |A| / t.
      if (size < needed || size * DUPLICATE_OVERLAP > terms.size) continue;
      const overlap = shared / (terms.size + size - shared);
      if (overlap >= DUPLICATE_OVERLAP && (!best || overlap > best.overlap || (overlap === best.overlap && id < best.id))) best = { id, overlap };
    }
  }
  return best?.id;
}
