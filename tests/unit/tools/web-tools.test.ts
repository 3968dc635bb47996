import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBrowseUrlTool } from '../../../src/core/tools/impl/browse-url.js';
import { createDownloadFileTool } from '../../../src/core/tools/impl/download-file.js';
import { createWebSearchTool } from '../../../src/core/tools/impl/web-search.js';
import { GIT_INTERNALS_REASON } from '../../../src/core/tools/git-internals.js';
import type { HostLookup } from '../../../src/core/tools/web-risk.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const SITE = 'https://docs.example.test';

/** A resolver from a table; unknown names get a public address. No test may query real DNS. */
function fakeDns(table: Readonly<Record<string, readonly string[]>> = {}): HostLookup {
  return async (hostname) => (table[hostname] ?? ['93.184.215.14']).map((address) => ({ address }));
}
/** Public names that the resolver maps to the metadata service or the LAN. */
const REBINDING_DNS = fakeDns({ 'internal.example.test': ['10.0.0.7'], 'evil.example.test': ['93.184.215.14', '169.254.169.254'] });

let test: TestToolContext;
beforeAll(() => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});
beforeEach(async () => {
  test = await createTestToolContext();
});
afterEach(async () => {
  nock.cleanAll();
  await test.cleanup();
});

describe('web_search', () => {
  it('uses the SearXNG JSON API when a search URL is configured', async () => {
    const results = Array.from({ length: 10 }, (_, index) => ({
      title: `Result ${index + 1}`,
      url: `https://r${index + 1}.test/`,
      content: `About ${index + 1}`,
    }));
    const scope = nock('https://searx.example.test').get('/search').query({ q: 'node abort signal', format: 'json' }).reply(200, { results });
    const tool = createWebSearchTool({ searchUrl: 'https://searx.example.test/search' });
    const result = await tool.execute({ query: 'node abort signal' }, test.context);
    expect(scope.isDone()).toBe(true);
    expect(result.output.split('\n')[1]).toBe('1. Result 1');
    expect(result.output).toContain('   https://r1.test/\n   About 1');
    expect(result.output).toContain('8. Result 8');
    expect(result.output).not.toContain('9. Result 9');
    expect(result.display).toBe('8 results');
  });

  it('parses DuckDuckGo HTML results and unwraps their redirect links', async () => {
    const html = `<html><body><div class="results">
      <div class="result results_links"><h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fnodejs.org%2Fapi%2Fglobals.html&amp;rut=abc">AbortSignal | Node.js</a></h2>
      <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">The <b>AbortSignal</b> is used to notify observers.</a></div>
      <div class="result"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Sponsored</a></div>
      <div class="result"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdeveloper.mozilla.org%2Fabort">AbortController - MDN</a>
      <a class="result__snippet">Cancels &amp; stops requests.</a></div></div></body></html>`;
    nock('https://html.duckduckgo.com').get('/html/').query({ q: 'abort signal' }).reply(200, html, { 'content-type': 'text/html; charset=utf-8' });
    const result = await createWebSearchTool().execute({ query: 'abort signal' }, test.context);
    expect(result.output).toBe(
      'Results for "abort signal":\n' +
        '1. AbortSignal | Node.js\n   https://nodejs.org/api/globals.html\n   The AbortSignal is used to notify observers.\n' +
        '2. AbortController - MDN\n   https://developer.mozilla.org/abort\n   Cancels & stops requests.',
    );
  });

  it('reports an HTTP error from the search service', async () => {
    nock('https://searx.example.test').get('/search').query(true).reply(503, 'busy');
    const tool = createWebSearchTool({ searchUrl: 'https://searx.example.test/search' });
    await expect(tool.execute({ query: 'x' }, test.context)).rejects.toThrow('The search service answered HTTP 503.');
  });
});

describe('browse_url', () => {
  const tool = createBrowseUrlTool({ lookup: REBINDING_DNS });

  it('returns the reader view of an HTML page as markdown', async () => {
    const page =
      '<html><head><title>Guide</title></head><body><nav><a href="/">Home</a></nav><main><h1>Install</h1><p>Run <code>npm i</code>, see <a href="/faq">the FAQ</a>.</p></main><footer>©</footer></body></html>';
    nock(SITE).get('/guide').reply(200, page, { 'content-type': 'text/html' });
    const result = await tool.execute({ url: `${SITE}/guide` }, test.context);
    expect(result.output).toBe(`Title: Guide\nURL: ${SITE}/guide\n\n## Install\n\nRun \`npm i\`, see [the FAQ](${SITE}/faq).`);
  });

  it('passes JSON and plain text through', async () => {
    nock(SITE).get('/data.json').reply(200, { ok: true }, { 'content-type': 'application/json' });
    const result = await tool.execute({ url: `${SITE}/data.json` }, test.context);
    expect(result.output).toBe(`URL: ${SITE}/data.json\n\n{"ok":true}`);
  });

  it('is SAFE for a public host and DANGEROUS for private or local addresses', async () => {
    expect(await tool.classify?.({ url: `${SITE}/x` }, test.context)).toMatchObject({ level: 'SAFE' });
    for (const url of [
      'http://127.0.0.1:8080/',
      'http://localhost/admin',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.5/',
      'http://[::1]/',
      'http://printer.local/',
      'http://metadata.google.internal/',
      'http://2130706433/',
    ]) {
      expect(await tool.classify?.({ url }, test.context), url).toEqual({
        level: 'DANGEROUS',
        reason: expect.stringContaining('reaches a private or local address'),
      });
    }
  });

  it('refuses a public page that redirects to a private address', async () => {
    nock(SITE).get('/go').reply(302, '', { location: 'http://169.254.169.254/latest/meta-data/' });
    await expect(tool.execute({ url: `${SITE}/go` }, test.context)).rejects.toThrow(/redirected to a private or local address \(169\.254\.169\.254\); refused/);
  });

  it('is DANGEROUS for a public name that resolves to a private address', async () => {
    expect(await tool.classify?.({ url: 'http://evil.example.test/' }, test.context)).toEqual({
      level: 'DANGEROUS',
      reason: 'reaches a private or local address (evil.example.test → 169.254.169.254)',
    });
  });

  it('refuses a redirect to a public name that resolves to a private address, without requesting it', async () => {
    nock(SITE).get('/hop').reply(302, '', { location: 'http://internal.example.test/admin' });
    const internal = nock('http://internal.example.test').get('/admin').reply(200, 'admin panel');
    await expect(tool.execute({ url: `${SITE}/hop` }, test.context)).rejects.toThrow(
      /internal\.example\.test reaches a private or local address \(internal\.example\.test → 10\.0\.0\.7\); refused/,
    );
    expect(internal.isDone()).toBe(false);
  });

  it('fetches a name that resolves privately once the person approved it', async () => {
    nock('http://internal.example.test').get('/status').reply(200, 'all green', { 'content-type': 'text/plain' });
    expect((await tool.execute({ url: 'http://internal.example.test/status' }, test.context)).output).toBe(
      'URL: http://internal.example.test/status\n\nall green',
    );
  });

  it('follows a public redirect and refuses non-http schemes', async () => {
    nock(SITE).get('/old').reply(301, '', { location: '/new' }).get('/new').reply(200, 'moved text', { 'content-type': 'text/plain' });
    expect((await tool.execute({ url: `${SITE}/old` }, test.context)).output).toBe(`URL: ${SITE}/new\n\nmoved text`);
    await expect(tool.execute({ url: 'file:///etc/passwd' }, test.context)).rejects.toThrow(/not an http\(s\) URL/);
  });
});

describe('download_file', () => {
  const tool = createDownloadFileTool({ lookup: REBINDING_DNS });

  it('saves to the URL file name in the workspace', async () => {
    nock(SITE).get('/files/report%202024.csv').reply(200, 'a,b\n1,2\n', { 'content-type': 'text/csv' });
    const result = await tool.execute({ url: `${SITE}/files/report%202024.csv` }, test.context);
    expect(await readFile(join(test.root, 'report_2024.csv'), 'utf8')).toBe('a,b\n1,2\n');
    expect(result.output).toBe(`Downloaded 8 B (text/csv) from ${SITE}/files/report%202024.csv to report_2024.csv.`);
  });

  it('is RESTRICTED for public hosts, DANGEROUS for private ones, and jails the path', async () => {
    expect((await tool.classify?.({ url: `${SITE}/a.zip` }, test.context))?.level).toBe('RESTRICTED');
    expect((await tool.classify?.({ url: 'http://192.168.1.1/config.bin' }, test.context))?.level).toBe('DANGEROUS');
    await expect(tool.execute({ url: `${SITE}/a.zip`, path: '../outside/a.zip' }, test.context)).rejects.toThrow(/outside the workspace/);
  });

  it('is DANGEROUS when it would write inside .git/, whatever the URL', async () => {
    for (const path of ['.git/config', '.git/hooks/pre-commit', 'sub/.GIT/config']) {
      expect(await tool.classify?.({ url: `${SITE}/config`, path }, test.context), path).toEqual({ level: 'DANGEROUS', reason: GIT_INTERNALS_REASON });
    }
    expect((await tool.preview({ url: `${SITE}/config`, path: '.git/config' }, test.context)).details).toContain(`risk: DANGEROUS — ${GIT_INTERNALS_REASON}`);
    expect(await tool.classify?.({ url: `${SITE}/config`, path: 'docs/git-config.txt' }, test.context)).toMatchObject({ level: 'RESTRICTED' });
    expect(await tool.classify?.({ url: 'http://evil.example.test/x', path: 'x.bin' }, test.context)).toMatchObject({
      level: 'DANGEROUS',
      reason: expect.stringContaining('private or local'),
    });
  });

  it('refuses a redirect to a name that resolves privately and leaves nothing behind', async () => {
    nock(SITE).get('/file.bin').reply(302, '', { location: 'http://evil.example.test/latest/meta-data/' });
    await expect(tool.execute({ url: `${SITE}/file.bin` }, test.context)).rejects.toThrow(/private or local address/);
    expect(await readdir(test.root)).toEqual([]);
  });

  it('refuses a file over the 50 MB limit by its declared length and leaves nothing behind', async () => {
    nock(SITE)
      .get('/big.iso')
      .reply(200, 'x', { 'content-length': String(60 * 1024 * 1024) });
    await expect(tool.execute({ url: `${SITE}/big.iso`, path: 'iso/big.iso' }, test.context)).rejects.toThrow(/over the 50 MB download limit/);
    expect(await readdir(test.root)).toEqual([]);
  });
});
