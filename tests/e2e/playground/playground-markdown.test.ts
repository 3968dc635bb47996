/** The page's renderer (server side): escape first, then only the renderer's own tags. */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/adapters/playground/markdown.js';

describe('playground markdown', () => {
  it('escapes every tag and attribute quote people or models write', () => {
    const html = renderMarkdown(`<img src=x onerror=alert(1)> "quoted" 'single' & <script>alert(1)</script>`);
    expect(html).toBe('<p>&lt;img src=x onerror=alert(1)&gt; &quot;quoted&quot; &#39;single&#39; &amp; &lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('links only http(s) URLs, with rel=noopener, and cannot be broken out of the attribute', () => {
    expect(renderMarkdown('[docs](https://example.com/a?b=1&c=2)')).toBe('<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">docs</a></p>');
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('<a');
    expect(renderMarkdown('[x](https://e.com/"onmouseover="alert(1))')).not.toMatch(/href="[^"]*"onmouseover/);
  });

  it('renders fences as <pre> (an unclosed one while streaming too), code spans unformatted, bold and quotes', () => {
    expect(renderMarkdown('run:\n```sh\necho "<b>" **not bold**\n```\ndone')).toBe('<p>run:</p><pre><code data-language="sh">echo &quot;&lt;b&gt;&quot; **not bold**</code></pre><p>done</p>');
    expect(renderMarkdown('```py\nprint(1)')).toBe('<pre><code data-language="py">print(1)</code></pre>');
    expect(renderMarkdown('`*x*` and *bold* and **strong**')).toBe('<p><code>*x*</code> and <strong>bold</strong> and <strong>strong</strong></p>');
    expect(renderMarkdown('> write `a.txt`\n🔧 read_file a.txt — 1 KB')).toBe('<blockquote>write <code>a.txt</code></blockquote><p><span class="tool-line">🔧 read_file a.txt — 1 KB</span></p>');
  });
});
