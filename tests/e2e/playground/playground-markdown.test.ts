/** The page's renderer (server side, markdown-it with raw HTML off): the constructs small local models write. */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/adapters/playground/markdown.js';

describe('playground markdown', () => {
  it('escapes every tag and attribute quote people or models write', () => {
    const html = renderMarkdown(`<img src=x onerror=alert(1)> "quoted" 'single' & <script>alert(1)</script>`);
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('links only http(s) URLs, with rel=noopener, and cannot be broken out of the attribute', () => {
    expect(renderMarkdown('[docs](https://example.com/a?b=1&c=2)')).toBe(
      '<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">docs</a></p>',
    );
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('<a');
    expect(renderMarkdown('[x](https://e.com/"onmouseover="alert(1))')).not.toMatch(/href="[^"]*"onmouseover/);
  });

  it('renders fences as <pre> (an unclosed one while streaming too), code spans unformatted, emphasis and quotes', () => {
    expect(renderMarkdown('run:\n```sh\necho "<b>" **not bold**\nline 2\n```\ndone')).toBe(
      '<p>run:</p><pre><code data-language="sh">echo &quot;&lt;b&gt;&quot; **not bold**\nline 2</code></pre><p>done</p>',
    );
    expect(renderMarkdown('```py\nprint(1)')).toBe('<pre><code data-language="py">print(1)</code></pre>');
    expect(renderMarkdown('`*x*` and *it* and **strong** and ***both***')).toBe(
      '<p><code>*x*</code> and <em>it</em> and <strong>strong</strong> and <em><strong>both</strong></em></p>',
    );
    expect(renderMarkdown('> write `a.txt`\n\n🔧 read_file a.txt — 1 KB')).toBe(
      '<blockquote><p>write <code>a.txt</code></p></blockquote><p><span class="tool-line">🔧 read_file a.txt — 1 KB</span></p>',
    );
  });

  it('renders lists and tables as HTML lists and tables', () => {
    const html = renderMarkdown('Steps:\n\n1. build\n2. test\n\n- one\n- two\n\n| file | lines |\n|---|---:|\n| a.ts | 12 |\n| b.ts | 7 |');
    expect(html).toContain('<ol><li>build</li><li>test</li></ol>');
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(html).toMatch(/<table><thead><tr><th>file<\/th><th style="text-align:right">lines<\/th><\/tr><\/thead><tbody><tr><td>a.ts<\/td>/);
    // A wide table scrolls sideways in its own box instead of being cut off by the pane (issue 24).
    expect(html).toMatch(/<div class="table-wrap"><table>[\s\S]*<\/table><\/div>$/);
  });

  it('shows images as links, never as images the page would fetch', () => {
    const html = renderMarkdown('![diagram](https://example.com/d.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="https://example.com/d.png" rel="noopener noreferrer" target="_blank">🖼 diagram</a>');
  });
});
