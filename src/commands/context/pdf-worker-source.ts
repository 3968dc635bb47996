/**
 * The code of the worker thread that reads PDFs' text (issue 23), kept as source text so that
 * neither tsx nor the bundle needs a second entry point: it runs as `new Worker(code, { eval: true })`
 * (CommonJS) and requires the PDF library from the absolute path it is given. It serves one job at
 * a time, `{ id, bytes, maxPages, maxChars }`, and answers `{ id, ok: true, text, chars, pages,
 * totalPages, truncated }` (`chars`: the pages' own text, page marks left out) or `{ id, ok: false,
 * name, message }`. Page by page, at most `maxPages` pages and about `maxChars` characters; pdf.js
 * with `eval` off (CVE-2024-4367), no font loading, errors only in its log. The thread stays up
 * between jobs so that pdf.js is compiled once, not once per PDF.
 */
export const PDF_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { getDocumentProxy } = require(workerData.modulePath);
async function read(job) {
  const document = await getDocumentProxy(job.bytes, { isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  try {
    const texts = [];
    let chars = 0;
    let pages = 0;
    for (let number = 1; number <= Math.min(document.numPages, job.maxPages) && chars < job.maxChars; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const text = content.items.map((item) => (item.str ?? '') + (item.hasEOL ? '\\n' : '')).join('').trim();
      page.cleanup();
      texts.push('[page ' + number + ']\\n' + text);
      chars += text.length;
      pages = number;
    }
    let text = texts.join('\\n\\n');
    const cut = text.length > job.maxChars;
    if (cut) text = text.slice(0, job.maxChars);
    return { ok: true, text, chars, pages, totalPages: document.numPages, truncated: cut || pages < document.numPages };
  } finally {
    await document.destroy();
  }
}
parentPort.on('message', (job) => {
  read(job).then(
    (answer) => parentPort.postMessage({ id: job.id, ...answer }),
    (error) => parentPort.postMessage({ id: job.id, ok: false, name: String((error && error.name) || 'Error'), message: String((error && error.message) || error) }),
  );
});
`;
