// One Chromium and one server on the viewer fixture for a file of browser tests: started before its
// first test and stopped after its last, with each test's page checked (no request off its
// origin, no page error) and closed after the test.

import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { launchChromium, openPage, type WatchedPage } from './viewer-browser.ts';
import { createViewerFixture, type ViewerFixture } from './viewer-fixture.ts';

export interface ViewerHarness {
  /** Set once the file's tests start. */
  fixture: ViewerFixture;
  server: RunningHttpServer;
  /** The page the running test opened last, checked and closed after it. */
  watched: WatchedPage | null;
  /** A fresh page at `url`, once the viewer says it is ready. */
  open(url: string): Promise<WatchedPage>;
}

/** Call inside the file's describe: it registers the hooks. */
export function useViewerHarness(options: { pollIntervalMs?: number } = {}): ViewerHarness {
  let browser: Browser | undefined;
  const harness = {
    watched: null,
    async open(url: string): Promise<WatchedPage> {
      if (!browser) throw new Error('Chromium is not started: open pages inside a test.');
      const watched = await openPage(browser);
      harness.watched = watched;
      await watched.page.goto(url);
      await watched.page.waitForSelector('body[data-ready="true"]');
      return watched;
    },
  } as ViewerHarness;

  beforeAll(async () => {
    harness.fixture = await createViewerFixture();
    harness.server = await startHttpServer({
      ledger: harness.fixture.ledger,
      events: harness.fixture.events,
      port: 0,
      ...options,
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await harness.server?.close();
    await harness.fixture?.cleanup();
  });
  afterEach(async () => {
    if (!harness.watched) return;
    await checkAndClosePage(harness.watched);
    harness.watched = null;
  });
  return harness;
}

/**
 * After a test: the page asked nothing of any origin but the one it was loaded from, and logged no
 * error; then its browser context is closed.
 */
async function checkAndClosePage(watched: WatchedPage): Promise<void> {
  const origin = new URL(watched.page.url()).origin;
  // data: URLs (the empty favicon) never leave the page; everything else must go to the server.
  const outside = watched.requests
    .map((request) => request.url())
    .filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
  expect(outside, 'requests outside the server').toEqual([]);
  expect(watched.errors, 'errors in the page').toEqual([]);
  await watched.page.context().close();
}
