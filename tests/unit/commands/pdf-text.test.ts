/** A PDF's text (issue 23): read in a worker thread, page-capped, and a locked or broken file gives a reason, never a crash. */
import { describe, expect, it } from 'vitest';
import { extractPdfText, PdfTextError } from '../../../src/commands/context/pdf-text.js';
import { garbagePdf, minimalPdf } from '../../support/minimal-pdf.js';

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'read',
    (error: unknown) => (error instanceof PdfTextError ? `${error.reason}: ${error.message}` : String(error)),
  );

describe('extractPdfText', () => {
  it('reads every page’s text, each after its page mark, and leaves the bytes it was given untouched', async () => {
    const bytes = new Uint8Array(minimalPdf([['Incident (db-7)', 'certificate expired'], ['renew it']]));
    const copy = bytes.slice();
    const pdf = await extractPdfText(bytes);
    expect(pdf).toEqual({
      text: '[page 1]\nIncident (db-7)\ncertificate expired\n\n[page 2]\nrenew it',
      pages: 2,
      totalPages: 2,
      truncated: false,
      empty: false,
    });
    expect(bytes).toEqual(copy);
  });

  it('stops at the page cap and the character cap, and says so', async () => {
    const pdf = await extractPdfText(minimalPdf(Array.from({ length: 8 }, (_, page) => [`page number ${page + 1}`])), { maxPages: 3 });
    expect(pdf).toMatchObject({ pages: 3, totalPages: 8, truncated: true });
    expect(pdf.text).toContain('page number 3');
    expect(pdf.text).not.toContain('page number 4');
    const cut = await extractPdfText(minimalPdf([['x'.repeat(200)]]), { maxChars: 50 });
    expect(cut.text).toHaveLength(50);
    expect(cut.truncated).toBe(true);
  });

  it('an encrypted PDF, a file that is no PDF, and one that takes too long each give a reason', async () => {
    expect(await reasonOf(extractPdfText(minimalPdf([['salaries']], { encrypted: true })))).toBe('encrypted: it is password-protected (encrypted)');
    expect(await reasonOf(extractPdfText(garbagePdf()))).toMatch(/^invalid: it is not a readable PDF \(/);
    // Reading 2,000 pages takes far longer than a millisecond, even in a worker a test before left warm
    // (a one-page PDF was once read within it): the reading is given up and its thread ended.
    const long = minimalPdf(Array.from({ length: 2_000 }, (_, page) => [`page ${page} ${'x'.repeat(80)}`]));
    expect(await reasonOf(extractPdfText(long, { timeoutMs: 1, maxPages: 2_000 }))).toBe('timeout: reading its text took longer than 1 ms');
  });

  it('a PDF without text is read as empty, not as a failure', async () => {
    expect(await extractPdfText(minimalPdf([[]]))).toMatchObject({ empty: true, totalPages: 1 });
  });
});
