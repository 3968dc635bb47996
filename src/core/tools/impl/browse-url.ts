import { decodeText, openUrl, readBodyLimited } from '../fetch-limited.js';
import { formatBytes } from '../format-bytes.js';
import { parseWebUrl } from '../private-address.js';
import { hostOf } from '../outgoing-secrets.js';
import type { ToolImplementation } from '../tool.js';
import { ToolFailureError } from '../tool-failure-error.js';
import { classifyWebUrl, createGuardedFetch, findPrivateTarget, type WebGuardOptions } from '../web-risk.js';

export const BROWSE_URL_TIMEOUT_MS = 20_000;
export const BROWSE_URL_MAX_BYTES = 5 * 1024 * 1024;

export type BrowseUrlInput = { url: string };

const PUBLIC_RISK = { level: 'SAFE', reason: 'reads a public web page' } as const;

/** Options of `browse_url`: the fetch to use and how host names are resolved for the SSRF guard. */
export interface BrowseUrlOptions extends WebGuardOptions {
  fetch?: typeof fetch;
}

/**
 * `browse_url`: fetches one page and returns it as readable markdown (HTML through the reader
 * view; plain text and JSON as they are). Private and local addresses need approval.
 */
export function createBrowseUrlTool(options: BrowseUrlOptions = {}): ToolImplementation<BrowseUrlInput> {
  return {
    name: 'browse_url',

    classify: (input) => classifyWebUrl(input.url, PUBLIC_RISK, options),

    outgoing: (input) => ({ destination: hostOf(input.url), texts: [input.url] }),

    async preview(input) {
      const risk = await classifyWebUrl(input.url, PUBLIC_RISK, options);
      return { summary: `browse_url ${input.url}`, details: [`url: ${input.url}`, `risk: ${risk.level} — ${risk.reason}`] };
    },

    async execute(input, context) {
      const url = parseWebUrl(input.url);
      if (!url) throw new ToolFailureError(`"${input.url}" is not an http(s) URL; browse_url only reads web pages.`);
      // A private target was approved as DANGEROUS; a public one must stay public on every hop.
      const allowPrivate = (await findPrivateTarget(url, options)) !== undefined;
      const opened = await openUrl(url, {
        fetch: allowPrivate ? (options.fetch ?? fetch) : createGuardedFetch(options.fetch ?? fetch, options),
        timeoutMs: BROWSE_URL_TIMEOUT_MS,
        signal: context.signal,
        allowPrivate,
        accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5',
      });
      const { response, finalUrl } = opened;
      if (!response.ok) {
        await response.body?.cancel();
        throw new ToolFailureError(`${finalUrl.host} answered HTTP ${response.status} for ${finalUrl.href}.`);
      }
      const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
      const kind = /html|xhtml/.test(contentType) ? 'html' : /^text\/|json|xml|javascript|yaml|csv/.test(contentType) || contentType === '' ? 'text' : 'binary';
      if (kind === 'binary') {
        await response.body?.cancel();
        throw new ToolFailureError(`${finalUrl.href} is ${contentType}, not a page; use download_file to save it.`);
      }
      const { bytes, truncated } = await readBodyLimited(opened, BROWSE_URL_MAX_BYTES, 'truncate');
      const text = decodeText(bytes, contentType);
      const note = truncated ? `\n\n[page cut at ${formatBytes(BROWSE_URL_MAX_BYTES)}]` : '';
      const display = `${formatBytes(bytes.length)} · ${contentType.split(';')[0] || 'text'}`;
      if (kind === 'text') return { output: `URL: ${finalUrl.href}\n\n${text}${note}`, display };
      // The reader view (a DOM, Readability, turndown) loads with the first page, not at start-up.
      const { htmlToMarkdown } = await import('../reader-view.js');
      const page = htmlToMarkdown(text, { baseUrl: finalUrl.href });
      const title = page.title ? `Title: ${page.title}\n` : '';
      const body = page.markdown || '(the page has no readable text; it may need JavaScript)';
      return { output: `${title}URL: ${finalUrl.href}\n\n${body}${note}`, display };
    },
  };
}
