/**
 * GitHub-style Markdown tables (`| a | b |` over `|---|---|`), which small local models write often,
 * rendered as aligned plain text for surfaces that have no tables (Slack mrkdwn, Discord): the
 * table becomes a fenced code block whose columns line up in a monospace font.
 */

const SEPARATOR_CELL = /^\s*:?-{1,}:?\s*$/;

function splitRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function isRow(line: string): boolean {
  return /^\s*\|?.*\|.*$/.test(line) && line.includes('|');
}

function isSeparator(line: string): boolean {
  if (!line.includes('-')) return false;
  const cells = splitRow(line);
  return cells.length > 0 && cells.every((cell) => SEPARATOR_CELL.test(cell));
}

/** Inline formatting means nothing inside a code block: keep the words. */
function plainCell(cell: string): string {
  return cell
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*\*(.+?)\*\*\*|\*\*(.+?)\*\*|__(.+?)__/g, (_match, a?: string, b?: string, c?: string) => a ?? b ?? c ?? '')
    .replace(/!?\[([^\]]*)\]\(([^)\s]+)\)/g, (_match, label: string, url: string) => (label ? `${label} (${url})` : url))
    .replace(/<br\s*\/?>/gi, ' ');
}

function width(text: string): number {
  return [...text].length;
}

function renderTable(header: string[], rows: string[][]): string {
  const columns = Math.max(header.length, ...rows.map((row) => row.length));
  const all = [header, ...rows].map((row) => Array.from({ length: columns }, (_, index) => plainCell(row[index] ?? '')));
  const widths = Array.from({ length: columns }, (_, index) => Math.max(...all.map((row) => width(row[index]!))));
  const line = (row: string[]) =>
    row
      .map((cell, index) => cell + ' '.repeat(widths[index]! - width(cell)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((size) => '-'.repeat(Math.max(size, 1))).join('  ');
  return ['```', line(all[0]!), rule, ...all.slice(1).map(line), '```'].join('\n');
}

/** Replaces every Markdown table outside fenced code with a fenced, column-aligned text block. */
export function tablesToCodeBlocks(markdown: string): string {
  if (!markdown.includes('|')) return markdown;
  const lines = markdown.split('\n');
  const out: string[] = [];
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (/^\s{0,3}```/.test(line)) inFence = !inFence;
    if (!inFence && isRow(line) && index + 1 < lines.length && isSeparator(lines[index + 1]!) && splitRow(line).length === splitRow(lines[index + 1]!).length) {
      const header = splitRow(line);
      const rows: string[][] = [];
      let next = index + 2;
      while (next < lines.length && isRow(lines[next]!) && lines[next]!.trim() !== '') rows.push(splitRow(lines[next++]!));
      out.push(renderTable(header, rows));
      index = next - 1;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
