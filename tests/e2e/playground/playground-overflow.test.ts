/**
 * Issue 40: what a newcomer does in the playground (a mention, a /goal whose step asks for approval,
 * the closing stats table, chart and plan graph), in Chromium at 1366 px and at 390 px — and nothing
 * in the thread pane is cut off. The test measures overflow (boxes and scroll widths), not pixels;
 * the screenshots are for people, in test-output/.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/cli/main.js';
import { callerOf } from '../../support/scripted-callers.js';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { hasChromium, launchChromium, skippedReason } from './chromium.js';
import { startPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';

const SIZES = [
  [1366, 900],
  [390, 844],
] as const;

/**
 * Runs in the page (as a string: the project compiles without the DOM lib). Every table, chart, card
 * and code block in the thread pane either fits its own box or scrolls inside a box of the message
 * (overflow-x auto, never the pane itself); whatever shows ends inside the pane's content box, and the
 * pane never scrolls sideways. `whole`: on a laptop nothing needs scrolling sideways at all. An
 * approval's preview (a diff) is always read whole: its lines wrap. Returns one line per offence.
 */
const measure = (whole: boolean) => `((whole) => {
  const pane = document.querySelector('#thread-messages');
  if (!pane || pane.offsetParent === null) return ['the thread pane is not shown'];
  const box = pane.getBoundingClientRect();
  const style = getComputedStyle(pane);
  const edge = { left: box.left + parseFloat(style.paddingLeft), right: box.right - parseFloat(style.paddingRight) };
  const problems = [];
  const name = (element) => element.tagName.toLowerCase() + (typeof element.className === 'string' && element.className.trim() ? '.' + element.className.trim().split(/\\s+/).join('.') : '') + ' "' + (element.textContent || '').trim().slice(0, 24) + '"';
  if (pane.scrollWidth > pane.clientWidth + 1) problems.push('the pane scrolls sideways: ' + pane.scrollWidth + ' > ' + pane.clientWidth);
  if (box.right > window.innerWidth + 1) problems.push('the pane ends at ' + box.right + ' past the window (' + window.innerWidth + ')');
  const scroller = (element) => {
    for (let node = element.parentElement; node && node !== pane; node = node.parentElement) {
      const overflow = getComputedStyle(node).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') return node;
    }
    return undefined;
  };
  const selector = 'table, svg, img, pre, figure, .table-wrap, .message.card, .message.card .content, .buttons';
  for (const element of pane.querySelectorAll(selector)) {
    if (element.closest('.avatar')) continue;
    const own = getComputedStyle(element).overflowX;
    const scrolls = own === 'auto' || own === 'scroll';
    const outer = scroller(element);
    const hidden = element.scrollWidth - element.clientWidth;
    if (hidden > 1 && (whole || element.querySelector('.diff-add, .diff-del') || (!scrolls && !outer)))
      problems.push(name(element) + ' hides ' + hidden + ' px sideways (' + element.scrollWidth + ' > ' + element.clientWidth + ')');
    const shown = (outer ?? element).getBoundingClientRect();
    if (shown.right > edge.right + 1) problems.push(name(outer ?? element) + ' ends at ' + Math.round(shown.right) + ' past the pane (' + Math.round(edge.right) + ')');
    if (shown.left < edge.left - 1) problems.push(name(outer ?? element) + ' starts at ' + Math.round(shown.left) + ' before the pane (' + Math.round(edge.left) + ')');
  }
  return problems;
})(${whole})`;

/** What the pane holds when it is measured: proof the walk reached what it measures. */
const INVENTORY = `(() => {
  const pane = document.querySelector('#thread-messages');
  return {
    tables: pane.querySelectorAll('pre:has(code), table').length,
    pictures: [...pane.querySelectorAll('.picture img')].filter((image) => image.naturalWidth > 0).length,
    cards: pane.querySelectorAll('.message.card').length,
  };
})()`;

// The functions passed to waitForFunction run in the page; the project compiles without the DOM lib.
declare const document: { querySelectorAll(selector: string): unknown };

let browser: Browser | undefined;
let harness: PlaygroundHarness | undefined;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
});
afterAll(async () => {
  await harness?.stop();
  await browser?.close();
});

const send = async (page: Page, selector: string, text: string) => {
  await page.fill(selector, text);
  await page.press(selector, 'Enter');
};

/** Measures the thread pane at both sizes, with a screenshot of each; back to the wide window after. */
async function measureBothSizes(page: Page, stage: string): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.locator('#thread-panel').waitFor({ state: 'visible' });
    // The screenshot shows the thread's end, where the newest card, table or chart is.
    await page.evaluate(`(() => { const pane = document.querySelector('#thread-messages'); pane.scrollTop = pane.scrollHeight; })()`);
    found[`${stage} @ ${width}`] = (await page.evaluate(measure(width >= 1366))) as string[];
    const file = path.join(PACKAGE_ROOT, 'test-output', `playground-quickstart-${stage}-${width}.png`);
    await mkdir(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    console.log(`playground screenshot (${stage}, ${width} px): ${file}`);
  }
  await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] });
  return found;
}

describe.skipIf(!hasChromium)(`playground at 1366 and 390 px, nothing cut off${skippedReason}`, () => {
  it('a mention, a /goal with an approval card, the stats table, chart and plan graph: all inside the thread pane', async () => {
    harness = await startPlaygroundHarness();
    const h = harness;
    const page = await browser!.newPage({ viewport: { width: SIZES[0][0], height: SIZES[0][1] } });
    // Nothing may leave 127.0.0.1.
    await page.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => route.abort(),
    );
    await page.goto(h.pageUrl);
    await page.waitForSelector('#connection[data-state="live"]');

    // 1. A mention: Geordi answers in the thread pane.
    h.model.enqueue({ text: 'I read files, write them after you approve, and run commands in the sandbox.' });
    await send(page, '#input', '@geordi what can you do?');
    await page.locator('#thread-messages .message-character .body', { hasText: 'run commands in the sandbox' }).waitFor();
    const problems = await measureBothSizes(page, 'mention');

    // 2. A /goal of two steps (so a plan graph); the first writes a file and asks for approval.
    const script: Record<string, ScriptedReplySpec[]> = {
      plan: [{ text: 'AGENT: @geordi — Write hello.txt with a greeting\nAGENT: @data — Check that hello.txt greets the reader\nEND' }],
      'step:1': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/hello.txt', content: `${'hello, reader — '.repeat(12)}\n` } }] },
        { text: 'Wrote notes/hello.txt.\nSTATUS: COMPLETED — hello written' },
      ],
      'step:2': [{ text: 'It greets the reader.\nSTATUS: COMPLETED — checked' }],
    };
    for (let index = 0; index < 4; index++)
      h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing scripted for ${callerOf(body as never)})` });
    await send(page, '#input', '/goal say hello to the reader in notes/hello.txt, then check it');
    const card = page.locator('#thread-messages .message.card', { has: page.locator('button', { hasText: /^Approve$/ }) });
    await card.waitFor();
    await page.locator('#thread-messages .picture img').first().waitFor();
    expect(await page.evaluate(INVENTORY)).toMatchObject({ pictures: 1 }); // the plan graph
    Object.assign(problems, await measureBothSizes(page, 'approval'));
    await card.locator('button', { hasText: /^Approve$/ }).click();

    // 3. The goal's end: the stats table and chart under the plan graph.
    await page.locator('#thread-messages pre:has(code)', { hasText: 'output tokens' }).waitFor();
    // Both pictures loaded (a function, not a string: the page's CSP forbids eval while it polls).
    await page.waitForFunction(
      () =>
        [...(document.querySelectorAll('#thread-messages .picture img') as Iterable<{ naturalWidth: number }>)].filter((image) => image.naturalWidth > 0)
          .length >= 2,
    );
    // The approved card's preview, the stats table; the plan graph and the stats chart.
    expect(await page.evaluate(INVENTORY)).toEqual({ tables: 2, pictures: 2, cards: 0 });
    Object.assign(problems, await measureBothSizes(page, 'goal'));

    expect(problems).toEqual({
      'mention @ 1366': [],
      'mention @ 390': [],
      'approval @ 1366': [],
      'approval @ 390': [],
      'goal @ 1366': [],
      'goal @ 390': [],
    });
    await page.close();
  }, 60_000);
});
