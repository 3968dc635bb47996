import { describe, expect, it } from 'vitest';
import { searchBm25 } from '../../../src/core/memory/bm25.js';
import {
  addDocument,
  type Bm25Index,
  createBm25Index,
  documentFrequency,
  documentsWithTerm,
  removeDocument,
  slotOf,
} from '../../../src/core/memory/bm25-index.js';
import { packBm25, unpackBm25 } from '../../../src/core/memory/bm25-packing.js';
import { decodeScopeView, encodeScopeView } from '../../../src/core/memory/index-snapshot.js';
import type { MemoryFact } from '../../../src/core/memory/memory-fact.js';
import { applyChanges, createScopeView, hasFact, putFact, removeFact } from '../../../src/core/memory/scope-view.js';
import { tokenize } from '../../../src/core/memory/text-normalize.js';

/** The BM25 the memory store used before the packed index (maps of maps), kept as the reference. */
function createReference() {
  const documents = new Map<string, Map<string, number>>();
  const lengths = new Map<string, number>();
  return {
    add(id: string, terms: readonly string[]) {
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      documents.set(id, counts);
      lengths.set(id, terms.length);
    },
    remove(id: string) {
      documents.delete(id);
      lengths.delete(id);
    },
    documentFrequency: (term: string) => [...documents.values()].filter((counts) => counts.has(term)).length,
    documents,
    lengths,
  };
}
type Reference = ReturnType<typeof createReference>;

function referenceSearch(collections: Reference[], queryTerms: string[], limit: number): { id: string; score: number }[] {
  const count = collections.reduce((sum, collection) => sum + collection.documents.size, 0);
  if (count === 0 || queryTerms.length === 0) return [];
  const totalLength = collections.reduce((sum, collection) => sum + [...collection.lengths.values()].reduce((a, b) => a + b, 0), 0);
  const averageLength = Math.max(1, totalLength / count);
  const terms = [...new Set(queryTerms)];
  const idfs = terms.map((term) => {
    const frequency = collections.reduce((sum, collection) => sum + collection.documentFrequency(term), 0);
    return frequency === 0 ? 0 : Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
  });
  const hits: { id: string; score: number }[] = [];
  for (const collection of collections) {
    for (const [id, counts] of collection.documents) {
      let score = 0;
      let matched = false;
      terms.forEach((term, position) => {
        const termFrequency = counts.get(term);
        if (!termFrequency || idfs[position] === 0) return;
        matched = true;
        const norm = termFrequency + 1.2 * (1 - 0.75 + (0.75 * collection.lengths.get(id)!) / averageLength);
        score += (idfs[position]! * termFrequency * 2.2) / norm;
      });
      if (matched) hits.push({ id, score });
    }
  }
  return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, limit);
}

const VOCABULARY = 'redis cache deploy helm kafka token vault proxy shard queue trace index release canary budget invoice'.split(' ');
function generator(seed: number) {
  let state = seed;
  const next = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return {
    next,
    terms: (count: number): string[] => Array.from({ length: count }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!),
  };
}

function compare(indexes: Bm25Index[], references: Reference[], random: ReturnType<typeof generator>): void {
  for (let query = 0; query < 40; query += 1) {
    const terms = random.terms(1 + (query % 4));
    const expected = referenceSearch(references, terms, 8);
    expect(searchBm25(indexes, terms, 8), terms.join(' ')).toEqual(expected);
    for (const term of terms) {
      expect(indexes.reduce((sum, index) => sum + documentFrequency(index, term), 0)).toBe(
        references.reduce((sum, ref) => sum + ref.documentFrequency(term), 0),
      );
    }
  }
}

describe('BM25 against the reference implementation', () => {
  it('gives the same hits and scores through adds, updates, removals and a pack/unpack round trip', () => {
    const random = generator(11);
    const reference = createReference();
    let index = createBm25Index();
    const put = (id: string) => {
      const content = random.terms(3 + Math.floor(random.next() * 12));
      const extra = random.terms(Math.floor(random.next() * 4));
      addDocument(index, id, content, extra);
      reference.add(id, [...content, ...extra]);
    };
    for (let document = 0; document < 120; document += 1) put(`d${document}`);
    compare([index], [reference], random);
    for (let document = 0; document < 120; document += 7) {
      removeDocument(index, `d${document}`);
      reference.remove(`d${document}`);
    }
    for (let document = 3; document < 120; document += 11) put(`d${document}`);
    compare([index], [reference], random);
    index = unpackBm25(packBm25(index));
    compare([index], [reference], random);
    // Removing opened documents leaves the packed arrays as they are: marks, and counts per term.
    const opened = Array.from({ length: 12 }, (_, position) => `d${position * 9 + 2}`);
    for (const id of opened) {
      removeDocument(index, id);
      reference.remove(id);
    }
    for (const id of opened.slice(0, 6)) put(id);
    compare([index], [reference], random);
    // And packs again without what was removed.
    index = unpackBm25(packBm25(index));
    compare([index], [reference], random);
    // The unpacked index keeps changing like any other.
    for (let document = 1; document < 120; document += 5) {
      removeDocument(index, `d${document}`);
      reference.remove(`d${document}`);
    }
    for (let document = 200; document < 260; document += 1) put(`d${document}`);
    compare([index], [reference], random);
  });

  it('searches a scope and the global scope as one collection, as before', () => {
    const random = generator(5);
    const references = [createReference(), createReference()];
    const indexes = [createBm25Index(), createBm25Index()];
    for (let document = 0; document < 90; document += 1) {
      const side = document % 3 === 0 ? 1 : 0;
      const terms = random.terms(2 + (document % 9));
      addDocument(indexes[side]!, `${side ? 'g' : 'w'}${document}`, terms);
      references[side]!.add(`${side ? 'g' : 'w'}${document}`, terms);
    }
    compare(indexes, references, random);
  });
});

describe('scope snapshots', () => {
  const fact = (id: string, content: string, options: Partial<MemoryFact> = {}): MemoryFact => ({
    id,
    content,
    summary: content.slice(0, 20),
    kind: 'fact',
    scope: '/ws',
    tags: [],
    pinned: false,
    hits: 0,
    createdAt: 1,
    lastUsedAt: 1,
    author: 'a',
    ...options,
  });

  it('decode what they encode: the same ranking and the same fact columns', () => {
    const view = createScopeView('/ws');
    const random = generator(3);
    for (let position = 0; position < 60; position += 1) {
      putFact(
        view,
        fact(`f${position}`, `${random.terms(8).join(' ')} note ${position}`, {
          pinned: position % 13 === 0,
          kind: position % 2 ? 'lesson' : 'fact',
          hits: position,
        }),
      );
    }
    removeFact(view, 'f4');
    removeFact(view, 'f9');
    const decoded = decodeScopeView('/ws', encodeScopeView(view));
    expect(decoded).toBeDefined();
    for (let query = 0; query < 20; query += 1) {
      const terms = random.terms(2);
      expect(searchBm25([decoded!.index], terms, 6)).toEqual(searchBm25([view.index], terms, 6));
    }
    const columnsOf = (target: typeof view, id: string) => {
      const slot = slotOf(target.index, id)!;
      const { flags, hits, textHash, duplicateHash } = target.columns;
      return [flags[slot], hits[slot], textHash[slot], duplicateHash[slot]];
    };
    for (const id of ['f0', 'f13', 'f21', 'f59']) expect(columnsOf(decoded!, id)).toEqual(columnsOf(view, id));
    expect(slotOf(decoded!.index, 'f4')).toBeUndefined();
  });

  it('open with no map entry per fact or term: ids and terms are found in their packed, sorted form', () => {
    const view = createScopeView('/ws');
    // Ids that sort unlike numbers, one a prefix of others, some beyond ASCII (one a surrogate pair).
    const ids = ['f10', 'f1', 'f2', 'F1', 'f1-x', 'fé', 'f😀', 'f'];
    ids.forEach((id, position) => putFact(view, fact(id, `Café ${id} deploy number${position} naïve gateway`)));
    const bytes = encodeScopeView(view);
    const decoded = decodeScopeView('/ws', bytes)!;
    expect(decoded.index.slots.size).toBe(0);
    expect(decoded.index.termIds.size).toBe(0);
    for (const id of ids) expect(hasFact(decoded, id)).toBe(true);
    for (const absent of ['f3', 'f1-', 'f100', '', 'fe', 'F']) expect(hasFact(decoded, absent)).toBe(false);
    const terms = [...tokenize('Café deploy naïve gateway number3'), 'absent'];
    for (const term of terms) expect(documentsWithTerm(decoded.index, term).sort()).toEqual(documentsWithTerm(view.index, term).sort());
    // A base fact rewritten and one removed change the opened index like the one it came from.
    for (const target of [view, decoded]) {
      putFact(target, fact('f1', 'brand newterm deploy'));
      removeFact(target, 'f😀');
    }
    expect(hasFact(decoded, 'f😀')).toBe(false);
    for (const query of [['newterm'], ['deploy'], ['gateway', 'number1']])
      expect(searchBm25([decoded.index], query, 10)).toEqual(searchBm25([view.index], query, 10));
    // Ids no longer in order (f10, f2 → f20, f1) cannot be searched: the snapshot is refused.
    const text = Buffer.from(bytes);
    const at = text.indexOf(Buffer.from('f10f2', 'utf16le'));
    expect(at).toBeGreaterThan(0);
    Buffer.from('f20f1', 'utf16le').copy(text, at);
    expect(decodeScopeView('/ws', new Uint8Array(text))).toBeUndefined();
  });

  it('take the changes read after them like the view they were made from', () => {
    const view = createScopeView('/ws');
    const random = generator(8);
    for (let position = 0; position < 40; position += 1) putFact(view, fact(`f${position}`, `${random.terms(6).join(' ')} item ${position}`));
    const decoded = decodeScopeView('/ws', encodeScopeView(view))!;
    const rewritten = [3, 8, 21].map((position) => fact(`f${position}`, `${random.terms(5).join(' ')} rewritten ${position}`));
    const used = fact('f5', view.facts.get('f5')!.content, { hits: 4, lastUsedAt: 9 });
    const added = fact('f90', `${random.terms(7).join(' ')} added`);
    for (const changed of [...rewritten, used, added]) putFact(view, changed);
    for (const id of ['f11', 'f30']) removeFact(view, id);
    applyChanges(decoded, [...rewritten, used, added], ['f11', 'f30', 'f-unknown']);
    for (let query = 0; query < 20; query += 1) {
      const terms = [...random.terms(2), query % 3 === 0 ? 'rewritten' : 'added'];
      expect(searchBm25([decoded.index], terms, 10)).toEqual(searchBm25([view.index], terms, 10));
    }
    expect(decoded.columns.hits[slotOf(decoded.index, 'f5')!]).toBe(4);
  });

  it('refuse another scope, another text analysis and damaged bytes', () => {
    const view = createScopeView('/ws');
    putFact(view, fact('f1', 'redis cache for sessions'));
    const bytes = encodeScopeView(view);
    expect(decodeScopeView('/other', bytes)).toBeUndefined();
    const text = Buffer.from(bytes).toString('latin1');
    const otherAnalysis = Buffer.from(
      text.replace(/"analysis":"[^"]+"/, (match) => match.replace(/.(?="$)/, (last) => (last === 'x' ? 'y' : 'x'))),
      'latin1',
    );
    expect(decodeScopeView('/ws', new Uint8Array(otherAnalysis))).toBeUndefined();
    expect(decodeScopeView('/ws', bytes.subarray(0, bytes.length - 3))).toBeUndefined();
    expect(decodeScopeView('/ws', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toBeUndefined();
  });
});
