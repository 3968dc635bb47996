/**
 * The playground in a real browser: Debian's Chromium, headless, driven by playwright-core.
 * Mention geordi and watch the reply stream into the thread panel, approve a tool call, run /call,
 * check that markup typed by a person shows as text, and save a screenshot.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, launchChromium, skippedReason } from './chromium.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/cli/main.js';
import { startPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';
import { callerOf } from '../../support/scripted-callers.js';

// The functions passed to waitForFunction run in the page; the project compiles without the DOM lib.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SCREENSHOT = path.join(PACKAGE_ROOT, 'test-output', 'playground.png');
/** The thread of a /goal as a person sees it on a laptop and on a phone (issue 24). */
const SCREENSHOT_WIDE = path.join(PACKAGE_ROOT, 'test-output', 'playground-goal-1366.png');
const SCREENSHOT_PHONE = path.join(PACKAGE_ROOT, 'test-output', 'playground-goal-390.png');

let browser: Browser | undefined;
let harness: PlaygroundHarness | undefined;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function openPage(h: PlaygroundHarness): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser!.newPage({ viewport: { width: 1366, height: 800 } });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Nothing may leave 127.0.0.1: the page needs nothing from the network.
  await page.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  await page.goto(h.pageUrl);
  await page.waitForSelector('#connection[data-state="live"]');
  return { page, dialogs };
}

const send = async (page: Page, selector: string, text: string) => {
  await page.fill(selector, text);
  await page.press(selector, 'Enter');
};

/** A box of the page: where it ends on the right, how wide its content is and how much of it shows. */
type Box = { right: number; scrollWidth: number; clientWidth: number; overflowX: string };
declare const window: { getComputedStyle(element: unknown): { overflowX: string; backgroundImage: string } };
// Through a locator, which waits for the element: the pane is drawn again as messages arrive, and a
// one-shot query between two drawings finds nothing (seen in a fresh-clone CI run).
const boxOf = (page: Page, selector: string): Promise<Box> =>
  page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const node = element as unknown as { getBoundingClientRect(): { right: number }; scrollWidth: number; clientWidth: number };
      return {
        right: node.getBoundingClientRect().right,
        scrollWidth: node.scrollWidth,
        clientWidth: node.clientWidth,
        overflowX: window.getComputedStyle(element).overflowX,
      };
    });

/**
 * Issue 24, what people read: a /goal's stats table and chart in the thread pane at 1366 px and on
 * a 390 px phone — the table scrolls inside the message (never cut off by the pane, never widening
 * the page), the chart is shown at its own size (its text ≥ 11 px), every face is a picture.
 */
async function goalAsSeen(page: Page, h: PlaygroundHarness): Promise<void> {
  const script: Record<string, { text: string }[]> = {
    plan: [{ text: '**AGENT:** @geordi — Write hello.txt\nEND' }],
    'step:1': [{ text: 'Wrote hello.txt.\nSTATUS: COMPLETED — hello written' }],
  };
  for (let index = 0; index < 2; index++) h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: 'nothing scripted' });
  await send(page, '#input', '/goal say hello in a file');
  await page.locator('#thread-messages pre', { hasText: 'output tokens' }).waitFor();
  const chart = page.locator('#thread-messages .picture img');
  await chart.waitFor();
  await page.waitForFunction(() => ((document.querySelector('#thread-messages .picture img') as { naturalWidth?: number } | null)?.naturalWidth ?? 0) > 0);
  for (const [width, file] of [
    [1366, SCREENSHOT_WIDE],
    [390, SCREENSHOT_PHONE],
  ] as const) {
    await page.setViewportSize({ width, height: 844 });
    // The thread pane is drawn again as messages arrive (the chart, the run card): wait for the table each time.
    await page.locator('#thread-messages pre:has(code)', { hasText: 'output tokens' }).first().waitFor();
    const pane = await boxOf(page, '#thread-messages');
    const stats = await boxOf(page, '#thread-messages pre:has(code)');
    // Whole on a laptop (issue 40: the pane is wide enough); on a phone it scrolls in its own box. Either way it ends inside the pane.
    if (width === 1366) expect(stats.scrollWidth).toBeLessThanOrEqual(stats.clientWidth);
    else expect(stats.scrollWidth).toBeGreaterThan(stats.clientWidth);
    expect(stats.overflowX).toBe('auto');
    expect(stats.right).toBeLessThanOrEqual(pane.right);
    // …and says so: a shadow at the edge that has more to show (it was cut off without a sign).
    expect(
      await page
        .locator('#thread-messages pre:has(code)')
        .first()
        .evaluate((element) => window.getComputedStyle(element).backgroundImage),
    ).toContain('radial-gradient');
    // The page itself never scrolls sideways.
    expect(await page.evaluate(() => (document as unknown as { documentElement: { scrollWidth: number } }).documentElement.scrollWidth)).toBeLessThanOrEqual(
      width,
    );
    // The chart is not shrunk (its text would be ≈ 7 px): shown at its own width, scrolling in its figure.
    const [shown, natural] = await chart.evaluate((image) => [
      (image as unknown as { clientWidth: number }).clientWidth,
      (image as unknown as { naturalWidth: number }).naturalWidth,
    ]);
    expect(shown).toBe(natural);
    expect((await boxOf(page, '#thread-messages .picture')).right).toBeLessThanOrEqual(pane.right);
    // Every face in the thread is a picture this server drew (TSUKA's too), none an emoji glyph.
    const faces = await page.$$eval('#thread-messages .avatar', (boxes) =>
      boxes.map((box) => {
        const image = (
          box as unknown as { querySelector(selector: string): { naturalWidth: number; getAttribute(name: string): string } | null }
        ).querySelector('img');
        return image ? `${image.getAttribute('src')}:${image.naturalWidth > 0}` : `text:${(box as unknown as { textContent: string }).textContent}`;
      }),
    );
    expect(faces.filter((face) => !/^\/avatars\/[\w-]+\.png:true$/.test(face))).toEqual([]);
    expect(faces).toContain('/avatars/tsuka-bot.png:true');
    await mkdir(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file });
    console.log(`playground screenshot (${width} px): ${file}`);
  }
  await page.setViewportSize({ width: 1366, height: 800 });
}

describe.skipIf(!hasChromium)(`playground in Chromium${skippedReason}`, () => {
  it('mention, streamed reply in a thread, approval, /call, escaping, screenshot', async () => {
    harness = await startPlaygroundHarness();
    const h = harness;
    const { page, dialogs } = await openPage(h);
    expect(await page.isHidden('#model-banner')).toBe(true);

    const reply = 'Found it: the fixture path moved from fixtures/ to test/fixtures/, so the loader reads nothing.';
    h.model.enqueue({ text: reply, chunkSize: 8, delayMsBetweenChunks: 50 });
    await send(page, '#input', '@geordi why does npm test fail? <img src=x onerror=alert(1)>');
    // The thread panel opens on the new message; the reply grows there under Geordi's name.
    const answer = '#thread-messages .message-character .body';
    await page.waitForFunction(
      (selector) => {
        const text = document.querySelector(selector)?.textContent ?? '';
        return text.startsWith('Found it') && !text.includes('reads nothing.');
      },
      answer,
      { polling: 'raf' },
    );
    await page.waitForFunction(([selector, full]) => (document.querySelector(selector!)?.textContent ?? '').includes(full!), [answer, reply] as const);
    expect(await page.textContent('#thread-messages .message-character .name')).toBe('Geordi');
    // Geordi's face: the picture this server draws (an emoji needs a font the system may lack), loaded.
    const face = '#thread-messages .message-character .avatar img';
    expect(await page.locator(face).first().getAttribute('src')).toBe('/avatars/geordi.png');
    await page.waitForFunction((selector) => ((document.querySelector(selector) as { naturalWidth?: number } | null)?.naturalWidth ?? 0) > 0, face);
    // What the person typed is shown as text: no <img> element, no alert.
    expect(await page.textContent('#messages .message-user .body')).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('#messages .message-user .body img').count()).toBe(0);

    h.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
    h.model.enqueue((body) => ({
      text: `Tool said: ${(body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool').at(-1)!.content}`,
    }));
    await send(page, '#thread-input', 'now write the plan to notes/plan.md');
    const prompt = page.locator('#thread-messages .card', { has: page.locator('button', { hasText: /^Approve$/ }) });
    await prompt.waitFor();
    expect(await prompt.locator('button').allTextContents()).toEqual(['Approve', 'Approve “write_file” for this run', 'Deny']);
    // While the turn waits, its reply is a run card with a Stop button.
    expect(await page.locator('#thread-messages .card button', { hasText: /^Stop$/ }).count()).toBe(1);
    const approve = prompt.locator('button', { hasText: /^Approve$/ });
    await approve.click();
    await page.locator('#thread-messages .body', { hasText: 'Approved by @you' }).waitFor();
    await page.locator('#thread-messages .body', { hasText: 'Tool said:' }).waitFor();
    expect(await readFile(path.join(h.workspace, 'notes/plan.md'), 'utf8')).toBe('# Plan\n');
    expect(await page.locator('#thread-messages .tool-line').count()).toBeGreaterThan(0);

    // The moderator states its decision (a verdict without one offers Reopen, never Adopt: issue 35).
    for (const turn of ['Geordi opens.', 'Spock answers.', 'Geordi replies.', 'Spock concludes.', 'Synthesis.\nDECISION: cache sessions in Redis'])
      h.model.enqueue({ text: turn });
    await send(page, '#input', '/call geordi spock "Should we cache sessions in Redis?"');
    // The debate opens its own thread: both speakers under their names, then the moderator's synthesis.
    await page.locator('#thread-messages .body', { hasText: 'Synthesis.' }).first().waitFor();
    expect(await page.locator('#thread-messages .message-character .name', { hasText: 'Spock' }).count()).toBeGreaterThan(0);
    expect(await page.locator('#thread-messages .message-character .name', { hasText: 'Geordi' }).count()).toBeGreaterThan(0);
    // Spock's last turn, and (issue 28) his position quoted on the verdict card with its Adopt button.
    expect(await page.locator('#thread-messages .body', { hasText: 'Spock concludes.' }).count()).toBeGreaterThanOrEqual(1);
    // The card comes after the synthesis: wait for it, then there is exactly one.
    await page.locator('#thread-messages button', { hasText: 'Adopt' }).waitFor();
    expect(await page.locator('#thread-messages button', { hasText: 'Adopt' }).count()).toBe(1);

    await goalAsSeen(page, h);

    // Files come through the API with the key: a download from a blob:.
    await send(page, '#input', '/tsuka export');
    const link = page.locator('.file a').first();
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/\.md$/);

    // The Direct section: a DM with the bot; the paperclip attaches a picture, shown in the message.
    await page.click('#directs button');
    // The title changes once the page has switched to the direct channel.
    await page.locator('#channel-title', { hasText: 'TSUKA' }).waitFor();
    h.model.enqueue({ text: 'A one-pixel picture.' });
    await page.setInputFiles('#files', { name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.locator('#chosen .chosen-file', { hasText: 'dot.png' }).waitFor();
    await send(page, '#input', 'what is this?');
    await page.waitForSelector('#messages .message-user .attachments img.thumbnail[src^="blob:"]');
    await page.locator('#thread-messages .body', { hasText: 'A one-pixel picture.' }).waitFor();
    expect(await page.locator('#chosen .chosen-file').count()).toBe(0);

    expect(dialogs).toEqual([]);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await page.close();
  }, 60_000);

  it('shows a banner with the commands to start a model server when none answers', async () => {
    harness = await startPlaygroundHarness({ withModel: false });
    const { page } = await openPage(harness);
    await page.locator('#model-banner').waitFor({ state: 'visible' });
    const message = await page.textContent('#model-message');
    expect(message).toContain('ollama serve');
    expect(message).toContain('llama-server');
    expect(message).toContain('lms server start');

    // The key from the start link is out of the address bar, and kept for this tab: a reload still works.
    expect(page.url()).toBe(`${harness.baseUrl}/`);
    await page.reload();
    await page.waitForSelector('#connection[data-state="live"]');
    await page.close();

    // Opened without the start link (a bookmark, another program's browser): nothing but how to get in.
    const stranger = await browser!.newPage();
    await stranger.goto(`${harness.baseUrl}/`);
    await stranger.locator('#key-banner').waitFor({ state: 'visible' });
    expect(await stranger.textContent('#connection')).toBe('no access key');
    expect(await stranger.locator('.message').count()).toBe(0);
    await stranger.close();
  });
});
