/**
 * The code of the worker thread that reads a PDF's text (issue 23), kept as source text so that
 * neither tsx nor the bundle needs a second entry point: it runs as `new Worker(code, { eval: true })`
 * (CommonJS) and requires the PDF library from the absolute path it is given. Page by page, at most
 * `maxPages` pages and about `maxChars` characters; pdf.js with `eval` off (decision of pdf.js after
 * CVE-2024-4367), no font loading, errors only in its log. It answers one message and ends:
 * `{ ok: true, text, chars, pages, totalPages, truncated }` (`chars`: the pages' own text, page marks left out) or `{ ok: false, name, message }`.
 */
export const PDF_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { maxPages, maxChars, modulePath } = workerData;
  const { getDocumentProxy } = require(modulePath);
  const document = await getDocumentProxy(workerData.bytes, {
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const texts = [];
  let chars = 0;
  let pages = 0;
  for (let number = 1; number <= Math.min(document.numPages, maxPages) && chars < maxChars; number += 1) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    const text = content.items.map((item) => (item.str ?? '') + (item.hasEOL ? '\\n' : '')).join('').trim();
    page.cleanup();
    texts.push('[page ' + number + ']\\n' + text);
    chars += text.length;
    pages = number;
  }
  let text = texts.join('\\n\\n');
  const cut = text.length > maxChars;
  if (cut) text = text.slice(0, maxChars);
  parentPort.postMessage({ ok: true, text, chars, pages, totalPages: document.numPages, truncated: cut || pages < document.numPages });
  await document.destroy();
})().catch((error) => {
  parentPort.postMessage({ ok: false, name: String((error && error.name) || 'Error'), message: String((error && error.message) || error) });
});
`;
