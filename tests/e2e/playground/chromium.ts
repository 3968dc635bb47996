/** Debian's Chromium driven by playwright-core, as the playground's browser tests use it (nothing leaves 127.0.0.1). */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const skippedReason = hasChromium ? '' : ' — skipped: /usr/bin/chromium is not installed (apt-get install -y chromium)';

/** Headless, with the background networking a closed machine refuses turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}
