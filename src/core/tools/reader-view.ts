/**
 * The reader view of `browse_url`: the page parsed as a browser would (linkedom), its article
 * found by Firefox's reader mode (@mozilla/readability), and that article written as Markdown
 * (turndown, with GitHub tables and fenced code). Scripts, navigation, ads and footers stay out,
 * so a local model spends its context on the content.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';

type ParsedDocument = ReturnType<typeof parseHTML>['document'];

/** Above this many elements (after the furniture is gone) the page skips the Readability pass. */
export const READABILITY_MAX_ELEMENTS = 20_000;

export interface ReaderView {
  title: string;
  markdown: string;
}

/** Never content, wherever it stands. */
const FURNITURE =
  'script, style, noscript, template, iframe, nav, aside, form, button, svg, canvas, object, embed, dialog, [role=navigation], [role=banner], [role=contentinfo], [role=search], [role=complementary], [hidden]';
/** Page header and footer: furniture outside the article, its heading and byline inside it. */
const PAGE_FRAME = 'header, footer';

/** Class or id words of page furniture inside an article: ads, sponsor and promo boxes, share bars, nags. */
const FURNITURE_WORD =
  /^(ad|ads|advert|advertisement|ad-.+|.+-ad|sponsor.*|promo.*|.+-promo|share.*|.+-share|social.*|newsletter.*|paywall.*|.+-nudge|cookie.*|consent.*|feedback|pagination.*|.+-nav|breadcrumbs?)$/i;

function isFurniture(element: { getAttribute(name: string): string | null }): boolean {
  const words = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`.split(/\s+/).filter(Boolean);
  return words.some((word) => FURNITURE_WORD.test(word));
}

function createTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', br: '' });
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'img', 'picture', 'svg', 'button', 'form']);
  // As turndown-plugin-gfm writes a cell, but a | inside it is escaped so the row keeps its columns.
  service.addRule('table-cell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const first = Array.prototype.indexOf.call(node.parentNode?.childNodes ?? [], node) === 0;
      return `${first ? '| ' : ' '}${content.replace(/\n+/g, ' ').replace(/(?<!\\)\|/g, '\\|')} |`;
    },
  });
  // A <pre> without <code> (old pages, highlighted READMEs) is still code: fenced, as it reads.
  service.addRule('bare-pre', {
    filter: (node) => node.nodeName === 'PRE' && !node.querySelector('code'),
    replacement: (_content, node) => `\n\n\`\`\`\n${(node.textContent ?? '').replace(/^\n+|\n+$/g, '')}\n\`\`\`\n\n`,
  });
  return service;
}

/** Converts one HTML page into its title and readable Markdown; links are made absolute against `baseUrl`. */
export function htmlToMarkdown(html: string, options: { baseUrl?: string } = {}): ReaderView {
  // linkedom builds a document only from a whole page; a fragment is given its <html> (and <body>).
  const whole = /<html[\s>]/i.test(html) ? html : `<!doctype html><html>${/<body[\s>]/i.test(html) ? html : `<body>${html}</body>`}</html>`;
  const { document } = parseHTML(whole);
  if (options.baseUrl) absolutize(document, options.baseUrl);
  for (const element of [...document.querySelectorAll(FURNITURE)]) element.remove();
  for (const element of [...document.querySelectorAll(PAGE_FRAME)]) if (!element.closest('article, main')) element.remove();
  for (const element of [...document.querySelectorAll('[class], [id]')]) if (isFurniture(element)) element.remove();
  // Readability's scoring grows faster than the page (≈0.9 s at 13,000 elements); past the cap the
  // cleaned body is written whole, so a huge page costs seconds, not the event loop's minute.
  const elements = document.querySelectorAll('*').length;
  const article =
    elements <= READABILITY_MAX_ELEMENTS ? new Readability(document.cloneNode(true) as never, { charThreshold: 200, keepClasses: true }).parse() : null;
  const turndown = createTurndown();
  const title = (article?.title || document.title || '').trim();
  const body = article?.content || (document.body?.innerHTML ?? '');
  const byline = article?.byline?.trim();
  const text = turndown
    .turndown(body)
    .replace(/\u00a0/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const markdown = byline && !text.includes(byline) ? `${byline}\n\n${text}` : text;
  return { title, markdown };
}

function absolutize(document: ParsedDocument, baseUrl: string): void {
  for (const link of [...document.querySelectorAll('a[href]')]) {
    const href = link.getAttribute('href') ?? '';
    try {
      link.setAttribute('href', new URL(href, baseUrl).href);
    } catch {
      // An href that is not a URL stays as the page wrote it.
    }
  }
}
