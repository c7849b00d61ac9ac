// Debian's Chromium through playwright-core, for the viewer's tests and screenshots. Never a
// downloaded browser: where /usr/bin/chromium is missing the tests skip with one line of reason,
// except in CI, where a missing browser must fail rather than pass silently.

import fs from 'node:fs';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';

export const CHROMIUM_PATH = process.env.NEXUS_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. Throws in CI instead. */
export function chromiumUnavailable(): string | null {
  if (fs.existsSync(CHROMIUM_PATH)) return null;
  const reason = `no Chromium at ${CHROMIUM_PATH} (apt-get install -y --no-install-recommends chromium, or set NEXUS_CHROMIUM)`;
  if (process.env.CI) throw new Error(`The viewer's browser tests must run in CI: ${reason}.`);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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

export interface WatchedPage {
  page: Page;
  /** Every request the page made, in order. */
  requests: Request[];
  /** Uncaught errors and console errors in the page. */
  errors: string[];
}

/** A fresh page at 1280×800 that records its requests and errors. */
export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const requests: Request[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, requests, errors };
}
