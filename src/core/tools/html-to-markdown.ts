/**
 * The reader view of `browse_url`: keeps what a person reads (title, headings, paragraphs, lists,
 * links, code, tables) and drops page furniture (scripts, navigation, headers, footers, asides,
 * forms), so a local model spends its context on the content.
 */
import { type HtmlElement, type HtmlNode, parseHtml, textOf, walkElements } from './html-parse.js';

export interface ReaderView {
  title: string;
  markdown: string;
}

const DROPPED_TAGS = new Set([
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'aside',
  'form',
  'button',
  'input',
  'select',
  'textarea',
  'iframe',
  'svg',
  'canvas',
  'object',
  'embed',
  'video',
  'audio',
  'map',
  'dialog',
  'link',
  'meta',
  'img',
  'picture',
]);
const DROPPED_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search', 'dialog', 'complementary']);
const BLOCK_TAGS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'body',
  'html',
  'figure',
  'figcaption',
  'address',
  'details',
  'summary',
  'center',
  'dl',
  'dt',
  'dd',
  'header',
  'footer',
  'caption',
  'fieldset',
  '#document',
]);
/** Indentation survives whitespace normalisation as this marker and becomes spaces at the end. */
const INDENT = '\u0001';
const PLACEHOLDER = /\u0002(\d+)\u0002/g;

interface RenderContext {
  baseUrl?: string;
  insideArticle: boolean;
  /** Fenced code blocks, kept out of whitespace normalisation and put back at the end. */
  protectedBlocks: string[];
}

/** Converts an HTML page into a title and readable markdown; `baseUrl` makes links absolute. */
export function htmlToMarkdown(html: string, options: { baseUrl?: string } = {}): ReaderView {
  const document = parseHtml(html);
  const elements = [...walkElements(document)];
  const titleElement = elements.find((element) => element.tag === 'title');
  const firstHeading = elements.find((element) => element.tag === 'h1');
  const title = (titleElement ? textOf(titleElement) : firstHeading ? textOf(firstHeading) : '').trim();
  const articles = elements.filter((element) => element.tag === 'article');
  const content =
    elements.find((element) => element.tag === 'main') ??
    (articles.length === 1 ? articles[0] : undefined) ??
    elements.find((element) => element.tag === 'body') ??
    document;
  const context: RenderContext = { baseUrl: options.baseUrl, insideArticle: content.tag !== 'body' && content !== document, protectedBlocks: [] };
  const body = normalizeBlock(renderNode(content, context))
    .replaceAll(INDENT, '  ')
    .replace(PLACEHOLDER, (_match, index: string) => context.protectedBlocks[Number(index)] ?? '');
  return { title, markdown: body.trim() };
}

function renderNode(node: HtmlNode, context: RenderContext): string {
  if (node.kind === 'text') return node.text;
  const element = node;
  if (isDropped(element, context)) return '';
  const tag = element.tag;
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) {
    const text = inline(element, context);
    return text ? block(`${'#'.repeat(Number(heading[1]))} ${text}`) : '';
  }
  switch (tag) {
    case 'br':
      return '\n';
    case 'hr':
      return block('---');
    case 'ul':
    case 'ol':
      return block(renderList(element, context));
    case 'li':
      return block(`- ${normalizeBlock(renderChildren(element, context))}`);
    case 'pre':
      return block(protect(renderPre(element), context));
    case 'code':
      return renderInlineCode(textOf(element));
    case 'a':
      return renderLink(element, context);
    case 'strong':
    case 'b':
      return wrapInline(renderChildren(element, context), '**');
    case 'em':
    case 'i':
      return wrapInline(renderChildren(element, context), '_');
    case 'blockquote':
      return block(
        normalizeBlock(renderChildren(element, context))
          .split('\n')
          .map((line) => `> ${line}`)
          .join('\n'),
      );
    case 'table':
      return block(renderTable(element, context));
    default: {
      const inner = renderChildren(element, { ...context, insideArticle: context.insideArticle || tag === 'article' || tag === 'main' });
      return BLOCK_TAGS.has(tag) ? block(inner) : inner;
    }
  }
}

function isDropped(element: HtmlElement, context: RenderContext): boolean {
  if (DROPPED_TAGS.has(element.tag)) return true;
  // An article's own header/footer carry its title and byline; the page's are furniture.
  if ((element.tag === 'header' || element.tag === 'footer') && !context.insideArticle) return true;
  const attributes = element.attributes;
  if ('hidden' in attributes || attributes['aria-hidden'] === 'true') return true;
  return DROPPED_ROLES.has(attributes.role ?? '');
}

function renderChildren(element: HtmlElement, context: RenderContext): string {
  return element.children.map((child) => renderNode(child, context)).join('');
}

function inline(element: HtmlElement, context: RenderContext): string {
  return renderChildren(element, context).replace(/\s+/g, ' ').trim();
}

function block(content: string): string {
  return `\n\n${content}\n\n`;
}

/** Collapses runs of spaces, trims every line, and allows at most one blank line in a row. */
function normalizeBlock(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function wrapInline(text: string, marker: string): string {
  const trimmed = text.replace(/\s+/g, ' ').trim();
  if (!trimmed) return text;
  const lead = /^\s/.test(text) ? ' ' : '';
  const trail = /\s$/.test(text) ? ' ' : '';
  return `${lead}${marker}${trimmed}${marker}${trail}`;
}

function renderInlineCode(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ');
  if (!collapsed.trim()) return collapsed;
  const fence = collapsed.includes('`') ? '``' : '`';
  return `${fence}${collapsed}${fence}`;
}

function renderLink(element: HtmlElement, context: RenderContext): string {
  const inner = renderChildren(element, context);
  const text = inner.replace(/\s+/g, ' ').trim();
  const href = (element.attributes.href ?? '').trim();
  if (!text || !href || href.startsWith('#') || /^javascript:/i.test(href) || inner.includes('\n\n')) return inner;
  let target = href;
  try {
    target = new URL(href, context.baseUrl).href;
  } catch (error) {
    // A relative link without a base (or a malformed one) is shown as written.
    if (!(error instanceof TypeError)) throw error;
  }
  const lead = /^\s/.test(inner) ? ' ' : '';
  const trail = /\s$/.test(inner) ? ' ' : '';
  return `${lead}[${text.replace(/[[\]]/g, '\\$&')}](${target.replace(/[()\s]/g, encodeURIComponent)})${trail}`;
}

function renderList(list: HtmlElement, context: RenderContext): string {
  const ordered = list.tag === 'ol';
  let number = Number.parseInt(list.attributes.start ?? '1', 10) || 1;
  const lines: string[] = [];
  for (const child of list.children) {
    if (child.kind !== 'element' || isDropped(child, context)) continue;
    const body = normalizeBlock(child.tag === 'li' ? renderChildren(child, context) : renderNode(child, context));
    const itemLines = body.split('\n').filter((line) => line.trim() !== '');
    if (itemLines.length === 0) continue;
    if (child.tag !== 'li') {
      lines.push(...itemLines.map((line) => `${INDENT}${line}`));
      continue;
    }
    const marker = ordered ? `${number}.` : '-';
    number += 1;
    lines.push(`${marker} ${itemLines[0]}`, ...itemLines.slice(1).map((line) => `${INDENT}${line}`));
  }
  return lines.join('\n');
}

function renderPre(element: HtmlElement): string {
  const code = element.children.find((child): child is HtmlElement => child.kind === 'element' && child.tag === 'code');
  const classes = `${code?.attributes.class ?? ''} ${element.attributes.class ?? ''}`;
  const language = /(?:language|lang)-([\w+#-]+)/.exec(classes)?.[1] ?? '';
  const text = rawText(element).replace(/^\n/, '').replace(/\s+$/, '');
  const fence = text.includes('```') ? '~~~~' : '```';
  return `${fence}${language}\n${text}\n${fence}`;
}

function rawText(node: HtmlNode): string {
  if (node.kind === 'text') return node.text;
  if (node.tag === 'br') return '\n';
  return node.children.map(rawText).join('');
}

function protect(text: string, context: RenderContext): string {
  context.protectedBlocks.push(text);
  return `\u0002${context.protectedBlocks.length - 1}\u0002`;
}

function renderTable(table: HtmlElement, context: RenderContext): string {
  const rows: string[][] = [];
  const collect = (element: HtmlElement): void => {
    for (const child of element.children) {
      if (child.kind !== 'element') continue;
      if (child.tag === 'tr') {
        const cells = child.children.filter((cell): cell is HtmlElement => cell.kind === 'element' && (cell.tag === 'td' || cell.tag === 'th'));
        rows.push(cells.map((cell) => inline(cell, context).replace(/\|/g, '\\|')));
      } else if (child.tag !== 'table') {
        collect(child);
      }
    }
  };
  collect(table);
  const nonEmpty = rows.filter((row) => row.some((cell) => cell !== ''));
  if (nonEmpty.length === 0) return '';
  const width = Math.max(...nonEmpty.map((row) => row.length));
  const format = (row: string[]): string => `| ${Array.from({ length: width }, (_, index) => row[index] ?? '').join(' | ')} |`;
  const [header, ...rest] = nonEmpty;
  return [format(header ?? []), `|${' --- |'.repeat(width)}`, ...rest.map(format)].join('\n');
}
