/**
 * Small PDFs written by hand for the tests (no tool needed): one Helvetica font, one content stream
 * per page with a text line per entry, and a cross-reference table with the real byte offsets
 * (PDF 1.4, ISO 32000-1 §7.5). `encrypted` adds a Standard security handler whose /U matches no
 * password, so a reader asks for one; `garbagePdf` is not a PDF at all.
 */

/** A PDF whose page `n` shows the lines of `pages[n]`. */
export function minimalPdf(pages: readonly (readonly string[])[], options: { encrypted?: boolean } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add(''); // 1: catalog, filled below
  add(''); // 2: page tree, filled below
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'); // 3
  const kids: number[] = [];
  for (const lines of pages) {
    const operators = lines.map((line, index) => `BT /F1 11 Tf 50 ${760 - index * 14} Td (${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`).join('\n');
    const content = add(`<< /Length ${Buffer.byteLength(operators, 'latin1')} >>\nstream\n${operators}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const encrypt = options.encrypted ? add(`<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >>`) : undefined;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  const id = '<0123456789abcdef0123456789abcdef>';
  const extra = encrypt ? ` /Encrypt ${encrypt} 0 R /ID [${id} ${id}]` : '';
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${extra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** Bytes that call themselves a PDF and are not one. */
export const garbagePdf = (): Buffer => Buffer.from('%PDF-1.7\nthis is not really a pdf, just some bytes \u0000\u0001\u0002\n', 'latin1');
