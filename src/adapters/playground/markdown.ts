/**
 * The command layer writes CommonMark; the page shows HTML rendered by markdown-it with raw HTML
 * off, so no text a model or a person typed can become markup: lists, tables, code, quotes,
 * emphasis; http(s) links only (rel=noopener); images become links (nothing is fetched by the
 * page). An unclosed fence (a reply still streaming) runs to the end.
 */
import MarkdownIt from 'markdown-it';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The reply renderer's compact tool lines ("🔧 read_file src/app.ts — 1.2 KB", "⛔ … — denied"). */
const TOOL_LINE = /^(?:🔧|⛔) \S/u;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const markdown = new MarkdownIt({ html: false, linkify: false, breaks: true, typographer: false });
markdown.validateLink = (url: string) => /^https?:\/\//i.test(url.trim());

markdown.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  tokens[index]!.attrSet('rel', 'noopener noreferrer');
  tokens[index]!.attrSet('target', '_blank');
  return self.renderToken(tokens, index, options);
};

markdown.renderer.rules.image = (tokens, index) => {
  const token = tokens[index]!;
  const source = String(token.attrGet('src') ?? '');
  const label = token.content || source;
  return `<a href="${escapeHtml(source)}" rel="noopener noreferrer" target="_blank">🖼 ${escapeHtml(label)}</a>`;
};

markdown.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index]!;
  const language = token.info
    .trim()
    .split(/\s+/)[0]!
    .replace(/[^\w+-]/g, '');
  const code = token.content.replace(/\n$/, '');
  // A diff (approval previews) gets its added and removed lines coloured.
  const body = language === 'diff' ? code.split('\n').map(diffLine).join('\n') : escapeHtml(code);
  return `<pre><code${language ? ` data-language="${language}"` : ''}>${body}</code></pre>`;
};

function diffLine(line: string): string {
  const kind = line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : undefined;
  return kind ? `<span class="${kind}">${escapeHtml(line)}</span>` : escapeHtml(line);
}

// A wide table scrolls sideways in its own box instead of being cut off by the pane (issue 24).
markdown.renderer.rules.table_open = () => '<div class="table-wrap"><table>';
markdown.renderer.rules.table_close = () => '</table></div>';

markdown.renderer.rules.text = (tokens, index) => {
  const token = tokens[index]!;
  const atLineStart = index === 0 || tokens[index - 1]!.type === 'softbreak' || tokens[index - 1]!.type === 'hardbreak';
  const escaped = escapeHtml(token.content);
  return atLineStart && TOOL_LINE.test(token.content) ? `<span class="tool-line">${escaped}</span>` : escaped;
};

/** Renders chat text to HTML that is safe to insert into the page. */
export function renderMarkdown(text: string): string {
  // Newlines right after a tag are layout only (text is escaped, so no `>` of its own stays raw).
  return markdown.render(text).replace(/>\n/g, '>').trimEnd();
}
