/**
 * The saved-page corpus of `browse_url` (tests/fixtures/pages): each page with the content a
 * reader view must keep, the furniture it must drop, its tables and code blocks. `scorePage`
 * counts the checks a converter passes, so two converters can be compared on the same pages.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PAGES_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'pages');

export interface PageExpectations {
  title: string;
  keep: string[];
  /** Header cells of each table, which must come out as a Markdown table. */
  tables: string[][];
  /** Lines of code that must sit inside a fenced block. */
  code: string[];
  drop: string[];
  /** Lines the Markdown must hold (spacing aside), e.g. list items with their markers. */
  lines?: string[];
  /** [parent item, child item]: the child must be indented deeper than its parent. */
  nested?: [string, string][];
}

export interface CorpusPage {
  name: string;
  html: string;
  expect: PageExpectations;
}

export interface PageScore {
  name: string;
  passed: number;
  total: number;
  failures: string[];
}

export function loadCorpus(): CorpusPage[] {
  const expectations = JSON.parse(readFileSync(path.join(PAGES_FOLDER, 'expectations.json'), 'utf8')) as Record<string, PageExpectations>;
  return Object.entries(expectations).map(([name, expect]) => ({ name, html: readFileSync(path.join(PAGES_FOLDER, name), 'utf8'), expect }));
}

const squash = (text: string) => text.replace(/\s+/g, ' ');

function fencedBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^(```+|~~~+)[^\n]*\n([\s\S]*?)^\1\s*$/gm)].map((match) => match[2] ?? '');
}

function hasTable(markdown: string, headers: string[]): boolean {
  const lines = markdown.split('\n');
  return lines.some((line, index) => {
    const cells = line
      .split('|')
      .map((cell) => cell.trim())
      .filter((cell) => cell !== '');
    const separator = lines[index + 1] ?? '';
    return headers.every((header, position) => cells[position] === header) && /^\|?\s*:?-{3,}/.test(separator.trim());
  });
}

function indentOf(markdown: string, text: string): number | undefined {
  const line = markdown.split('\n').find((candidate) => candidate.includes(text));
  return line === undefined ? undefined : line.length - line.trimStart().length;
}

/** Scores one converter output against its page's expectations. */
export function scorePage(page: CorpusPage, output: { title: string; markdown: string }): PageScore {
  const failures: string[] = [];
  let total = 0;
  const check = (ok: boolean, what: string) => {
    total++;
    if (!ok) failures.push(what);
  };
  const { markdown } = output;
  // The model reads the title line browse_url puts above the Markdown, so both count as kept text.
  const flat = squash(`${output.title}\n${markdown}`);
  check(output.title.includes(page.expect.title) || squash(markdown).includes(`# ${page.expect.title}`), `title "${page.expect.title}"`);
  for (const phrase of page.expect.keep) check(flat.includes(squash(phrase)), `keeps "${phrase}"`);
  for (const headers of page.expect.tables) check(hasTable(markdown, headers), `table ${headers.join(' | ')}`);
  const blocks = fencedBlocks(markdown);
  for (const line of page.expect.code)
    check(
      blocks.some((block) => block.includes(line)),
      `fenced "${line}"`,
    );
  // A list item's line, however many spaces follow its marker; its depth is checked by `nested`.
  for (const line of page.expect.lines ?? [])
    check(
      markdown.split('\n').some((candidate) => squash(candidate.trim()) === squash(line.trim())),
      `line "${line}"`,
    );
  for (const [parent, child] of page.expect.nested ?? []) {
    const outer = indentOf(markdown, parent);
    const inner = indentOf(markdown, child);
    check(outer !== undefined && inner !== undefined && inner > outer, `"${child}" nested under "${parent}"`);
  }
  for (const phrase of page.expect.drop) check(!flat.includes(phrase), `drops "${phrase}"`);
  return { name: page.name, passed: total - failures.length, total, failures };
}
