import { describe, expect, it } from 'vitest';
import { searchBm25 } from '../../../src/core/memory/bm25.js';
import { addDocument, createBm25Index, documentCount, removeDocument } from '../../../src/core/memory/bm25-index.js';
import { deriveSummary, shortenToSummary } from '../../../src/core/memory/fact-summary.js';
import { duplicateKey, foldText, stem, tokenize } from '../../../src/core/memory/text-normalize.js';

describe('text normalization', () => {
  it('folds accents and case', () => {
    expect(foldText('Café NAÏVE Perché')).toBe('cafe naive perche');
  });

  it('drops English and Italian stop words and one-letter words', () => {
    expect(tokenize('The cache is in a Redis instance')).toEqual(['cach', 'redis', 'instanc']);
    expect(tokenize('il database della squadra è lento')).toEqual(['databas', 'squadra', 'lento']);
  });

  it('brings inflected forms of a word to one stem', () => {
    for (const group of [
      ['cache', 'cached', 'caches', 'caching'],
      ['test', 'tests', 'tested', 'testing'],
      ['policy', 'policies'],
      ['run', 'running', 'runs'],
      ['stop', 'stopped', 'stopping'],
    ]) {
      expect(new Set(group.map(stem)).size, group.join(',')).toBe(1);
    }
    expect(stem('status')).toBe('status');
    expect(stem('redis')).toBe('redis');
  });

  it('gives equal duplicate keys to texts differing only in case, accents, punctuation and spacing', () => {
    expect(duplicateKey('Use  Redis — for sessions!')).toBe(duplicateKey('use redis for sessions'));
    expect(duplicateKey('Café')).toBe(duplicateKey('cafe'));
    expect(duplicateKey('use redis')).not.toBe(duplicateKey('use postgres'));
  });
});

describe('summaries', () => {
  it('keeps short text and cuts long text at a word within 72 characters', () => {
    expect(shortenToSummary('short  and\nsweet')).toBe('short and sweet');
    const long = 'The deployment pipeline builds the image, pushes it to the registry and then restarts every node';
    const summary = shortenToSummary(long);
    expect(summary.length).toBeLessThanOrEqual(72);
    expect(summary.endsWith('…')).toBe(true);
    expect(long.startsWith(summary.slice(0, -1))).toBe(true);
    expect(long[summary.length - 1]).toBe(' ');
  });

  it('derives from the first sentence when it is long enough', () => {
    expect(deriveSummary('Sessions live in Redis. The TTL is one hour and the key prefix is sess:.')).toBe('Sessions live in Redis.');
    expect(deriveSummary('Ok. Then more words follow here')).toBe('Ok. Then more words follow here');
  });
});

describe('BM25', () => {
  it('ranks the document with the rarer matching term first, and forgets removed documents', () => {
    const index = createBm25Index();
    addDocument(index, 'common', tokenize('the server logs are noisy'));
    addDocument(index, 'rare', tokenize('the server uses redis for sessions'));
    addDocument(index, 'other', tokenize('server restarts nightly'));
    const hits = searchBm25([index], tokenize('redis server'), 10);
    expect(hits[0]?.id).toBe('rare');
    expect(hits).toHaveLength(3);
    removeDocument(index, 'rare');
    expect(searchBm25([index], tokenize('redis'), 10)).toEqual([]);
    expect(documentCount(index)).toBe(2);
  });

  it('searches several indexes as one collection', () => {
    const workspace = createBm25Index();
    const global = createBm25Index();
    addDocument(workspace, 'w1', tokenize('deploy with make deploy'));
    addDocument(global, 'g1', tokenize('always deploy on tuesdays'));
    expect(searchBm25([workspace, global], tokenize('deploy tuesday'), 5).map((hit) => hit.id)).toEqual(['g1', 'w1']);
    expect(searchBm25([workspace, global], [], 5)).toEqual([]);
  });
});
