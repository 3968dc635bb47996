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

// The functions passed to waitForFunction run in the page; the project compiles without the DOM lib.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SCREENSHOT = path.join(PACKAGE_ROOT, 'test-output', 'playground.png');

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
  const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
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

    for (const turn of ['Geordi opens.', 'Spock answers.', 'Geordi replies.', 'Spock concludes.', 'Synthesis.']) h.model.enqueue({ text: turn });
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
  }, 30_000);

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
