/**
 * The command layer writes light markdown (CommonMark plus Slack's `*bold*`); the page shows HTML.
 * Everything is HTML-escaped first and only then given the few tags we add, so no text a model or
 * a person typed can become markup: fenced code → <pre>, code spans → <code>, bold, italics,
 * quotes, http(s) links with rel=noopener. An unclosed fence (a reply still streaming) runs to the end.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The reply renderer's compact tool lines ("🔧 read_file src/app.ts — 1.2 KB", "⛔ … — denied"). */
const TOOL_LINE = /^(?:🔧|⛔) \S/u;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Renders chat text to HTML that is safe to insert into the page. */
export function renderMarkdown(text: string): string {
  const html: string[] = [];
  let prose: string[] = [];
  let code: string[] | undefined;
  let language = '';
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}```(.*)$/.exec(line);
    if (code === undefined && fence) {
      html.push(renderProse(prose.join('\n')));
      prose = [];
      code = [];
      language = (fence[1] ?? '').trim().replace(/[^\w+-]/g, '');
    } else if (code !== undefined && fence && fence[1]!.trim() === '') {
      html.push(codeBlock(code, language));
      code = undefined;
    } else if (code !== undefined) code.push(line);
    else prose.push(line);
  }
  if (code !== undefined) html.push(codeBlock(code, language));
  html.push(renderProse(prose.join('\n')));
  return html.join('');
}

function codeBlock(lines: string[], language: string): string {
  return `<pre><code${language ? ` data-language="${language}"` : ''}>${escapeHtml(lines.join('\n'))}</code></pre>`;
}

function renderProse(text: string): string {
  const trimmed = text.replace(/^\n+|\n+$/g, '');
  if (trimmed === '') return '';
  const lines = trimmed.split('\n');
  const out: string[] = [];
  let quote: string[] = [];
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${quote.join('<br>')}</blockquote>`);
    quote = [];
  };
  const plain: string[] = [];
  const flushPlain = () => {
    if (plain.length > 0) out.push(`<p>${plain.join('<br>')}</p>`);
    plain.length = 0;
  };
  for (const line of lines) {
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (quoted) {
      flushPlain();
      quote.push(renderInline(quoted[1] ?? ''));
      continue;
    }
    flushQuote();
    const heading = /^#{1,6}\s+(.+)$/.exec(line);
    if (heading) plain.push(`<strong>${renderInline(heading[1]!)}</strong>`);
    else if (TOOL_LINE.test(line)) plain.push(`<span class="tool-line">${renderInline(line)}</span>`);
    else plain.push(renderInline(line));
  }
  flushPlain();
  flushQuote();
  return out.join('');
}

/** One line: code spans are kept apart so that nothing inside them is formatted. */
function renderInline(line: string): string {
  return line
    .split(/(`[^`\n]+`)/g)
    .map((segment, index) => (index % 2 === 1 ? `<code>${escapeHtml(segment.slice(1, -1))}</code>` : formatSpan(escapeHtml(segment))))
    .join('');
}

/** Works on already-escaped text: the only tags in the output are the ones added here. */
function formatSpan(escaped: string): string {
  return escaped
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, (_match, label: string, url: string) => `<a href="${url}" rel="noopener noreferrer" target="_blank">${label}</a>`)
    .replace(/\*\*(?=\S)(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])\*(?=\S)([^*]+?)\*(?=$|[\s).,:;!?])/g, '$1<strong>$2</strong>')
    .replace(/(^|[\s(])_(?=\S)([^_]+?)_(?=$|[\s).,:;!?])/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)(.+?)~~/g, '<del>$1</del>');
}
