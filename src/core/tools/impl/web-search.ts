import { decodeText, openUrl, readBodyLimited } from '../fetch-limited.js';
import { hasClass, parseHtml, textOf, walkElements } from '../html-parse.js';
import { hostOf } from '../outgoing-secrets.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';

export const WEB_SEARCH_TIMEOUT_MS = 15_000;
export const WEB_SEARCH_MAX_RESULTS = 8;
/** Used when no SearXNG instance is configured. */
export const DUCKDUCKGO_HTML_URL = 'https://html.duckduckgo.com/html/';
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
const MAX_SNIPPET_CHARACTERS = 300;

export type WebSearchInput = { query: string };

interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/**
 * `web_search`: a SearXNG instance's JSON API when `searchUrl` is set, else DuckDuckGo's HTML
 * page; the top results as a numbered list.
 */
export function createWebSearchTool(options: { fetch?: typeof fetch; searchUrl?: string } = {}): ToolImplementation<WebSearchInput> {
  return {
    name: 'web_search',

    outgoing: (input) => ({ destination: hostOf(options.searchUrl ?? DUCKDUCKGO_HTML_URL), texts: [input.query] }),

    preview: (input) => ({ summary: `web_search "${input.query}"` }),

    async execute(input, context) {
      const query = input.query.trim();
      if (query === '') throw new ToolFailureError('query is empty; give words to search for.');
      const url = options.searchUrl ? new URL(options.searchUrl) : new URL(DUCKDUCKGO_HTML_URL);
      url.searchParams.set('q', query);
      if (options.searchUrl) url.searchParams.set('format', 'json');
      const opened = await openUrl(url, {
        fetch: options.fetch ?? fetch,
        timeoutMs: WEB_SEARCH_TIMEOUT_MS,
        signal: context.signal,
        // A configured SearXNG instance may well live on the LAN; DuckDuckGo may not redirect there.
        allowPrivate: Boolean(options.searchUrl),
        accept: options.searchUrl ? 'application/json' : 'text/html',
      });
      if (!opened.response.ok) {
        await opened.response.body?.cancel();
        throw new ToolFailureError(`The search service answered HTTP ${opened.response.status}.`);
      }
      const { bytes } = await readBodyLimited(opened, MAX_RESPONSE_BYTES, 'truncate');
      const text = decodeText(bytes, opened.response.headers.get('content-type') ?? '');
      const results = (options.searchUrl ? parseSearxng(text) : parseDuckDuckGo(text)).slice(0, WEB_SEARCH_MAX_RESULTS);
      if (results.length === 0) return { output: `No results for "${query}".`, display: '0 results' };
      const lines = results.map((result, index) => {
        const snippet = result.snippet.length > MAX_SNIPPET_CHARACTERS ? `${result.snippet.slice(0, MAX_SNIPPET_CHARACTERS)}…` : result.snippet;
        return `${index + 1}. ${result.title}\n   ${result.url}${snippet ? `\n   ${snippet}` : ''}`;
      });
      return { output: `Results for "${query}":\n${lines.join('\n')}`, display: `${results.length} results` };
    },
  };
}

/** SearXNG `format=json`: `{ results: [{ title, url, content }] }` (https://docs.searxng.org/dev/search_api.html). */
function parseSearxng(text: string): SearchResult[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ToolFailureError('The search service did not answer with JSON; check the configured search URL.', { cause: error });
  }
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new ToolFailureError('The search service answered JSON without a results list.');
  return results.flatMap((entry: unknown): SearchResult[] => {
    const record = entry as Record<string, unknown> | null;
    if (!record || typeof record.url !== 'string') return [];
    const title = typeof record.title === 'string' && record.title.trim() ? record.title.trim() : record.url;
    const snippet = typeof record.content === 'string' ? record.content.replace(/\s+/g, ' ').trim() : '';
    return [{ title, url: record.url, snippet }];
  });
}

/** DuckDuckGo's HTML results: `a.result__a` (title, redirect link) then `.result__snippet`. */
function parseDuckDuckGo(html: string): SearchResult[] {
  const results: SearchResult[] = [];
  for (const element of walkElements(parseHtml(html))) {
    if (element.tag === 'a' && hasClass(element, 'result__a')) {
      const url = unwrapRedirect(element.attributes.href ?? '');
      if (url) results.push({ title: textOf(element).trim(), url, snippet: '' });
    } else if (hasClass(element, 'result__snippet')) {
      const last = results[results.length - 1];
      if (last && last.snippet === '') last.snippet = textOf(element).trim();
    }
  }
  return results;
}

/** DuckDuckGo links go through `//duckduckgo.com/l/?uddg=<target>`; show the target. */
function unwrapRedirect(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
  const target = url.searchParams.get('uddg');
  if (target) return target;
  return url.hostname.endsWith('duckduckgo.com') ? undefined : url.href;
}
