import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, READABILITY_MAX_ELEMENTS } from '../../../src/core/tools/reader-view.js';

/** Shaped like a real documentation page: site chrome around one article, scripts, a cookie form. */
const DOC_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Deploying &amp; Scaling | Acme Docs</title>
<link rel="stylesheet" href="/main.css"><style>body { color: red }</style>
<script>window.dataLayer = []; document.write("<p>tracking</p>");</script></head>
<body>
<header class="site-header"><a href="/" class="logo">Acme</a>
  <nav aria-label="Main"><ul><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav></header>
<div class="layout">
  <aside class="toc"><ul><li><a href="#install">Install</a></li></ul></aside>
  <main id="content"><article>
    <header><h1>Deploying the service</h1><p class="byline">Updated by Ana</p></header>
    <p>Run the <code>deploy</code> command from the <a href="../cli/">CLI guide</a>. It takes <strong>about 2 minutes</strong>&nbsp;on average.</p>
    <h2 id="steps">Steps</h2>
    <ol><li>Build the image<li>Push it:
      <ul><li>to <em>staging</em></li><li>to production</li></ul>
    <li>Verify</ol>
    <pre><code class="language-bash">npm run build
npm run deploy -- --env=prod
</code></pre>
    <h2>Sizes</h2>
    <table><thead><tr><th>Env</th><th>Replicas</th></tr></thead>
      <tbody><tr><td>staging<td>1<tr><td>prod</td><td>3 | max</td></tr></tbody></table>
    <blockquote><p>Keep &lt;secrets&gt; out of logs.</p></blockquote>
    <div hidden>hidden text</div>
    <form class="feedback"><label>Was this helpful?</label><button>Yes</button></form>
  </article></main>
</div>
<footer class="site-footer"><p>&copy; 2024 Acme</p></footer>
<script src="/app.js"></script>
</body></html>`;

describe('htmlToMarkdown (the reader view)', () => {
  const view = htmlToMarkdown(DOC_PAGE, { baseUrl: 'https://acme.test/docs/deploy/' });

  it('keeps the title and the article, in markdown', () => {
    expect(view.title).toBe('Deploying & Scaling | Acme Docs');
    expect(view.markdown).toBe(
      [
        // Readability lifts the byline out of the article and turns the article's h1 into h2 (the title is the h1).
        'Updated by Ana',
        '## Deploying the service',
        'Run the `deploy` command from the [CLI guide](https://acme.test/docs/cli/). It takes **about 2 minutes** on average.',
        '## Steps',
        '1.  Build the image\n2.  Push it:\n    -   to _staging_\n    -   to production\n3.  Verify',
        '```bash\nnpm run build\nnpm run deploy -- --env=prod\n```',
        '## Sizes',
        '| Env | Replicas |\n| --- | --- |\n| staging | 1 |\n| prod | 3 \\| max |',
        '> Keep <secrets> out of logs.',
      ].join('\n\n'),
    );
  });

  it('drops scripts, styles, navigation, page header and footer, asides, forms and hidden parts', () => {
    for (const gone of ['tracking', 'dataLayer', 'color: red', 'Blog', 'Acme</', '© 2024', 'Install', 'helpful', 'hidden text']) {
      expect(view.markdown).not.toContain(gone);
    }
  });

  it('uses the body when there is no main or single article, and keeps preformatted whitespace', () => {
    const plain = htmlToMarkdown('<body><p>One</p><pre>  a\n    b</pre><p>Two<br>lines</p></body>');
    expect(plain).toEqual({ title: '', markdown: 'One\n\n```\n  a\n    b\n```\n\nTwo\nlines' });
  });

  it('writes a page too big for the Readability pass from its cleaned body, still without furniture', () => {
    const rows = Array.from({ length: READABILITY_MAX_ELEMENTS }, (_, index) => `<p>Row ${index}</p>`).join('');
    const big = htmlToMarkdown(`<html><body><nav>Menu</nav><main><h1>Big page</h1>${rows}<p>The last row.</p></main><script>track()</script></body></html>`);
    // Readability would have written the h1 as ##: this is the body, as it stands.
    expect(big.markdown.startsWith('# Big page\n\nRow 0\n\nRow 1')).toBe(true);
    expect(big.markdown.endsWith('The last row.')).toBe(true);
    expect(big.markdown).not.toContain('Menu');
    expect(big.markdown).not.toContain('track()');
  });
});
