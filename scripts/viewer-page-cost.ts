// What the viewer's timeline costs on a long session: a session of N turns (100,000 by default)
// in a temp SQLite file behind a real server, opened in Debian's Chromium. Prints the time until
// the newest page is drawn, the requests it took, the turns in the page, the time to page back,
// and, for comparison, what reading the whole history stream once costs.
// Run: `npx tsx scripts/viewer-page-cost.ts [turns]`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAgentsLedger } from '../packages/agents-ledger/src/index.ts';
import { createEventsLedger } from '../packages/events-ledger/src/index.ts';
import { startHttpServer } from '../packages/server/src/index.ts';
import { chromiumUnavailable, launchChromium, openPage } from '../packages/server/test/viewer-browser.ts';
import { openLedgerStore } from '../packages/store/src/index.ts';

const turns = Number(process.argv[2] ?? 100_000);

async function main(): Promise<void> {
  const unavailable = chromiumUnavailable();
  if (unavailable) throw new Error(`Cannot measure: ${unavailable}.`);
  if (!Number.isInteger(turns) || turns < 1) throw new Error('turns must be a whole number, 1 or more');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'nexus-viewer-cost-'));
  // Both ledgers on one store, as `nexus serve` opens them.
  const store = openLedgerStore(path.join(directory, 'ledger.db'));
  const ledger = createAgentsLedger({ store });
  const events = createEventsLedger({ store });
  const server = await startHttpServer({ ledger, events, port: 0 });
  const browser = await launchChromium();
  try {
    const session = await ledger.createSession({ label: `${turns} turns` });
    const writeStart = performance.now();
    for (let start = 0; start < turns; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, turns - start) }, (_, offset) => ({
        role: (start + offset) % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `Turn ${start + offset + 1}: the deploy of build ${(start + offset) * 7} passed its checks on host web-${(start + offset) % 16}.`,
      }));
      await ledger.appendTurns(session.id, batch);
    }
    console.log(`wrote ${turns} turns in ${((performance.now() - writeStart) / 1000).toFixed(1)} s`);
    const head = (await ledger.getSession(session.id)).headTurnId as string;

    const { page, requests } = await openPage(browser);
    const openStart = performance.now();
    await page.goto(`${server.url}/#view=timeline&session=${session.id}`);
    await page.waitForSelector(`[data-timeline] > [data-turn="${head}"]`);
    const firstDrawn = performance.now() - openStart;
    await page.waitForSelector('body[data-ready="true"]');
    const opened = performance.now() - openStart;
    const shown = await page.locator('[data-timeline] > [data-turn]').count();
    const elements = await page.locator('*').count();
    console.log(
      `head turn drawn in ${firstDrawn.toFixed(0)} ms, newest page in ${opened.toFixed(0)} ms: ${shown} turns shown, ${elements} elements in the page, ${requests.length} requests`,
    );

    const before = requests.length;
    const olderStart = performance.now();
    await page.click('[data-action="older"]');
    await page
      .locator('[data-timeline] > [data-turn]')
      .nth(2 * shown - 1)
      .waitFor();
    console.log(`one older page in ${(performance.now() - olderStart).toFixed(0)} ms, ${requests.length - before} requests`);

    // For comparison: the whole history, streamed once, as a viewer without paging would read it.
    const streamStart = performance.now();
    const response = await fetch(`${server.url}/v1/turns/${head}/history`);
    const text = await response.text();
    const lines = text.split('\n').filter(Boolean).length;
    console.log(
      `whole history stream: ${lines} turns, ${(text.length / 1024 / 1024).toFixed(1)} MiB in ${(performance.now() - streamStart).toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
    await server.close();
    await ledger.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
