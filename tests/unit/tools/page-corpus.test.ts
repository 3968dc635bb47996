/**
 * browse_url's reader view on the saved-page corpus (tests/fixtures/pages): every page keeps its
 * content, writes its tables as Markdown tables and its code fenced, and drops the furniture.
 * The corpus chose linkedom + Readability + turndown over our own parser (docs/decisions/0010).
 */
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/core/tools/reader-view.js';
import { loadCorpus, scorePage } from '../../support/page-corpus.js';

const corpus = loadCorpus();

describe('the reader view on the saved-page corpus', () => {
  it('holds the six kinds of page the corpus promises', () => {
    expect(corpus.map((page) => page.name).sort()).toEqual([
      'blog-article.html',
      'docs-page.html',
      'malformed.html',
      'nested-lists.html',
      'news-article.html',
      'readme-page.html',
    ]);
  });

  it.each(corpus.map((page) => [page.name, page] as const))('passes every check on %s', (_name, page) => {
    const score = scorePage(page, htmlToMarkdown(page.html, { baseUrl: 'https://pages.test/' }));
    expect(score.failures).toEqual([]);
    expect(score.total).toBeGreaterThan(10);
  });

  it('is scored by checks that fail a converter which keeps everything', () => {
    for (const page of corpus) {
      const raw = page.html.replace(/<[^>]+>/g, ' ');
      const score = scorePage(page, { title: '', markdown: raw });
      expect(
        score.failures.filter((failure) => failure.startsWith('drops')),
        page.name,
      ).not.toEqual([]);
      if (page.expect.tables.length > 0)
        expect(
          score.failures.some((failure) => failure.startsWith('table')),
          page.name,
        ).toBe(true);
    }
  });
});
