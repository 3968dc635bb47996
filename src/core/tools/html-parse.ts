/**
 * A small, forgiving HTML tree builder for the reader view and the search-result parser.
 * Not a spec-complete parser: it handles what real pages need (void and raw-text elements,
 * implied end tags of p/li/td/tr, stray end tags, comments, entities).
 */

export interface HtmlElement {
  kind: 'element';
  tag: string;
  attributes: Record<string, string>;
  children: HtmlNode[];
}

export interface HtmlText {
  kind: 'text';
  text: string;
}

export type HtmlNode = HtmlElement | HtmlText;

const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT_TAGS = new Set(['script', 'style', 'textarea', 'title', 'noscript', 'xmp', 'template']);
/** An opening tag of the key closes an open element of one of the values (implied end tags). */
const IMPLIED_CLOSERS: Record<string, readonly string[]> = {
  li: ['li'],
  dt: ['dt', 'dd'],
  dd: ['dt', 'dd'],
  tr: ['tr'],
  td: ['td', 'th'],
  th: ['td', 'th'],
  option: ['option'],
  p: ['p'],
};
const BLOCKS_CLOSING_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'div',
  'dl',
  'fieldset',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'pre',
  'section',
  'table',
  'ul',
  'figure',
]);
/** Implied closing stops at these, so a nested list's `<li>` does not close the outer one. */
const SCOPE_BOUNDARIES = new Set(['ul', 'ol', 'dl', 'table', 'tbody', 'thead', 'tfoot', 'select', 'div', 'body', 'html']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  times: '×',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  para: '¶',
  sect: '§',
  shy: '',
};

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<![^>]*>|<\?[^>]*>|<\/?([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

/** Decodes character references (`&amp;`, `&#39;`, `&#x27;`, the common named ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);?/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? match;
  });
}

/** Parses a document into a root element (`#document`) holding the top-level nodes. */
export function parseHtml(html: string): HtmlElement {
  const root: HtmlElement = { kind: 'element', tag: '#document', attributes: {}, children: [] };
  const stack: HtmlElement[] = [root];
  const top = (): HtmlElement => stack[stack.length - 1] ?? root;
  const addText = (text: string): void => {
    if (text) top().children.push({ kind: 'text', text: decodeEntities(text) });
  };
  let position = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(html); match; match = TOKEN.exec(html)) {
    addText(html.slice(position, match.index));
    position = TOKEN.lastIndex;
    const tagName = match[1]?.toLowerCase();
    if (!tagName) continue; // comment, doctype, processing instruction
    if (match[0][1] === '/') {
      closeElement(stack, tagName);
      continue;
    }
    closeImplied(stack, tagName);
    const element: HtmlElement = { kind: 'element', tag: tagName, attributes: parseAttributes(match[2] ?? ''), children: [] };
    top().children.push(element);
    if (VOID_TAGS.has(tagName) || match[0].endsWith('/>')) continue;
    if (RAW_TEXT_TAGS.has(tagName)) {
      const closing = new RegExp(`</${tagName}`, 'ig');
      closing.lastIndex = position;
      const end = closing.exec(html)?.index ?? -1;
      const stop = end === -1 ? html.length : end;
      const raw = html.slice(position, stop);
      if (raw) element.children.push({ kind: 'text', text: tagName === 'title' || tagName === 'textarea' ? decodeEntities(raw) : raw });
      const close = end === -1 ? html.length : html.indexOf('>', end);
      position = close === -1 ? html.length : close + 1;
      TOKEN.lastIndex = position;
      continue;
    }
    stack.push(element);
  }
  addText(html.slice(position));
  return root;
}

function parseAttributes(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(source); match; match = ATTRIBUTE.exec(source)) {
    const name = match[1]?.toLowerCase();
    if (name) attributes[name] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

function closeElement(stack: HtmlElement[], tagName: string): void {
  for (let index = stack.length - 1; index > 0; index -= 1) {
    if (stack[index]?.tag === tagName) {
      stack.length = index;
      return;
    }
  }
  // A stray end tag with no open element is ignored, as browsers do.
}

function closeImplied(stack: HtmlElement[], tagName: string): void {
  const closes = IMPLIED_CLOSERS[tagName] ?? (BLOCKS_CLOSING_P.has(tagName) ? ['p'] : undefined);
  if (!closes) return;
  for (let index = stack.length - 1; index > 0; index -= 1) {
    const open = stack[index];
    if (!open) break;
    if (closes.includes(open.tag)) {
      stack.length = index;
      return;
    }
    if (SCOPE_BOUNDARIES.has(open.tag)) return;
  }
}

/** Depth-first walk over elements, in document order. */
export function* walkElements(node: HtmlElement): Generator<HtmlElement> {
  for (const child of node.children) {
    if (child.kind === 'element') {
      yield child;
      yield* walkElements(child);
    }
  }
}

/** The text content of a node, whitespace collapsed. */
export function textOf(node: HtmlNode): string {
  if (node.kind === 'text') return node.text;
  return node.children.map(textOf).join('').replace(/\s+/g, ' ');
}

/** True when the element's `class` attribute contains `name` as a whole word. */
export function hasClass(element: HtmlElement, name: string): boolean {
  return (element.attributes.class ?? '').split(/\s+/).includes(name);
}
