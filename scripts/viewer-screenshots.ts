// Screenshots of each view of the web viewer, for docs/viewer.md: the fixture ledger of the
// viewer's tests behind a real server, Debian's Chromium at 1280×800, one PNG per view in
// docs/images/viewer-*.png. Run: `npx tsx scripts/viewer-screenshots.ts [output folder]`.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from '../packages/server/src/index.ts';
import { chromiumUnavailable, launchChromium, openPage } from '../packages/server/test/viewer-browser.ts';
import { createViewerFixture } from '../packages/server/test/viewer-fixture.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const output = path.resolve(process.argv[2] ?? path.join(root, 'docs', 'images'));

async function main(): Promise<void> {
  const unavailable = chromiumUnavailable();
  if (unavailable) throw new Error(`Cannot take screenshots: ${unavailable}.`);
  const fixture = await createViewerFixture();
  const server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser);
    const shot = async (name: string) => {
      const file = path.join(output, `viewer-${name}.png`);
      await page.screenshot({ path: file });
      console.log(`wrote ${path.relative(root, file)}`);
    };
    const open = async (fragment: string) => {
      // A new document each time: going from one #fragment to another would only fire hashchange.
      await page.goto('about:blank');
      await page.goto(`${server.url}/#${fragment}`);
      await page.waitForSelector('body[data-ready="true"]');
    };
    const [first, second] = fixture.compactions;
    if (!first || !second) throw new Error('the fixture has fewer than two compactions');

    await open(`view=timeline&session=${fixture.migration.id}`);
    await shot('timeline');

    await open(`view=timeline&session=${fixture.migration.id}&at=${second.id}`);
    await shot('compactions');

    await open(`view=timeline&session=${fixture.migration.id}&at=${first.id}`);
    await page.click(`[data-turn="${first.id}"] [data-action="expand"]`);
    await page.waitForSelector(`[data-covered="${first.id}"] .turn`);
    await page.evaluate(`document.getElementById('turn-${first.id}').scrollIntoView({ block: 'start' })`);
    await shot('compaction-expanded');

    await open(`view=timeline&session=${fixture.fork.id}`);
    await page.evaluate(`document.querySelector('.fork-point').scrollIntoView({ block: 'center' })`);
    await shot('fork');

    // Imported sessions: named by title or project folder in the sidebar, a Codex patch with its lines.
    await open(`view=timeline&session=${fixture.imported.codex.id}`);
    await shot('imported');

    await open('view=search&q=pgbouncer');
    await page.waitForSelector('[data-hit]');
    await shot('search');

    await open(
      `view=context&session=${fixture.migration.id}&budget=600&query=${encodeURIComponent('pgbouncer version')}&retrieval=1`,
    );
    await page.waitForSelector('[data-context]');
    await shot('context');

    const topics = await fixture.ledger.topics(fixture.topics.id);
    await open(`view=topics&session=${fixture.topics.id}&topic=${topics[0]?.id ?? ''}`);
    await page.waitForSelector('[data-topic-turns] .turn');
    await page.evaluate('window.scrollTo(0, 0)');
    await shot('topics');

    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    await server.close();
    fixture.cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
