/**
 * Issue 16 in a real browser (Debian's Chromium, playwright-core): a reply with a list and a table
 * renders as HTML lists and tables; an ephemeral note can be dismissed; the page works at 1366 and
 * 390 px (screenshots in test-output/); after `tsuka start` restarts on the same data folder the
 * conversation is still there.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { hasChromium, launchChromium, skippedReason } from './chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/cli/main.js';
import { startPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';

declare const document: { documentElement: { scrollWidth: number } };

const OUTPUT = path.join(PACKAGE_ROOT, 'test-output');

let browser: Browser | undefined;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function openPage(h: PlaygroundHarness, width: number, height: number): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width, height } });
  await page.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  await page.goto(h.pageUrl);
  await page.waitForSelector('#connection[data-state="live"]');
  return page;
}

const REPLY = 'Two checks:\n\n- run `npm test`\n- read the log\n\n| file | lines |\n|------|------:|\n| app.ts | 120 |\n| db.ts | 80 |\n\nDone.';

describe.skipIf(!hasChromium)(`playground remembers and reads well${skippedReason}`, () => {
  it('lists and tables render, ephemerals dismiss, 1366 and 390 px, and the chat survives a restart', async () => {
    let harness: PlaygroundHarness | undefined = await startPlaygroundHarness();
    const home = harness.home;
    try {
      harness.model.enqueue({ text: REPLY, chunkSize: 12, delayMsBetweenChunks: 10 });
      let page = await openPage(harness, 1366, 900);
      await page.fill('#input', '@geordi how do I check the build?');
      await page.press('#input', 'Enter');
      await page.locator('#thread-messages td', { hasText: 'db.ts' }).waitFor();
      expect(await page.locator('#thread-messages .message-character li').allTextContents()).toEqual(['run npm test', 'read the log']);
      expect(await page.locator('#thread-messages .message-character th').allTextContents()).toEqual(['file', 'lines']);
      expect(await page.locator('#thread-messages .message-character td').count()).toBe(4);
      // The reply finished (its Stop button is gone) before the restart below.
      await page.locator('#thread-messages .message-character .body', { hasText: 'Done.' }).waitFor();
      await harness.waitFor(() => [...harness!.messages.values()].every((message) => message.buttons.length === 0));

      // An ephemeral note (only you can see this) can be dismissed, on the page and on the server.
      await page.fill('#input', '/tsuka help');
      await page.press('#input', 'Enter');
      const note = page.locator('#messages .ephemeral');
      await note.waitFor();
      await note.locator('button.dismiss').click();
      await note.waitFor({ state: 'detached' });
      await expect.poll(async () => ((await (await harness!.get('/api/state')).json()) as { ephemerals: unknown[] }).ephemerals.length).toBe(0);

      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: path.join(OUTPUT, 'playground-1366.png') });
      await page.setViewportSize({ width: 390, height: 844 });
      // One pane at a time on a phone: the thread over the channel, nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await page.locator('#thread-messages td', { hasText: 'db.ts' }).isVisible()).toBe(true);
      await page.screenshot({ path: path.join(OUTPUT, 'playground-390.png') });
      expect((await stat(path.join(OUTPUT, 'playground-390.png'))).size).toBeGreaterThan(5_000);
      await page.close();

      await harness.stop({ keepHome: true });
      harness = undefined;
      harness = await startPlaygroundHarness({ home });
      page = await openPage(harness, 1366, 900);
      const asked = page.locator('#messages .message-user', { hasText: 'how do I check the build?' });
      await asked.waitFor();
      await asked.locator('button.replies').click();
      await page.locator('#thread-messages td', { hasText: 'db.ts' }).waitFor();
      expect(await page.locator('#thread-messages .message-character .name').first().textContent()).toBe('Geordi');
      await page.close();
    } finally {
      await harness?.stop();
    }
  }, 45_000);
});
