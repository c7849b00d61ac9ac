// The viewer while the ledger moves and grows: turns and compactions written through the API show
// up in an open page from the session's stream; a long session opens at its newest page and reads
// only that page; with a token, the page sends it to /v1 and nowhere else.

import type { Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttpServer, startHttpServer } from '../src/index.ts';
import { chromiumUnavailable, type WatchedPage } from './viewer-browser.ts';
import { historyIds, type ViewerFixture } from './viewer-fixture.ts';
import { useViewerHarness } from './viewer-harness.ts';

const unavailable = chromiumUnavailable();
if (unavailable) console.warn(`viewer browser tests skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)(unavailable ? `viewer live (skipped: ${unavailable})` : 'the web viewer, live', () => {
  const viewer = useViewerHarness({ pollIntervalMs: 100 });
  let fixture: ViewerFixture;
  let server: RunningHttpServer;
  beforeAll(() => {
    ({ fixture, server } = viewer);
  });

  const open = (base: string, fragment: string): Promise<WatchedPage> => viewer.open(`${base}/#${fragment}`);

  async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as Record<string, unknown>;
  }

  it('shows a turn appended through the API, and a compaction, while the page is open', async () => {
    const session = fixture.migration.id;
    const { page } = await open(server.url, `view=timeline&session=${session}`);
    await page.waitForSelector('#live.on');
    const appended = (await post(`/v1/sessions/${session}/turns`, {
      turns: [
        { role: 'user', content: 'A week later: db-payments-1 is decommissioned, snapshot snap-7731 kept for 90 days.' },
        { role: 'assistant', content: 'Recorded in the runbook: decommissioned, snapshot snap-7731 retained until June.' },
      ],
    })) as { turns: Array<{ id: string }> };
    for (const turn of appended.turns) await page.waitForSelector(`[data-timeline] > [data-turn="${turn.id}"]`);
    const compaction = (await post(`/v1/sessions/${session}/compact`, {})) as { id: string };
    await page.waitForSelector(`[data-timeline] > [data-compaction][data-turn="${compaction.id}"]`);
    // The session's header follows the head too.
    await page.waitForSelector(`.session-head [data-field="head"]:text-is("${compaction.id}")`);
    const head = (await fixture.ledger.getSession(session)).headTurnId as string;
    const history = await historyIds(fixture.ledger, head);
    const shown = await page.$$eval('[data-timeline] > [data-turn]', (items) =>
      items.map((item) => item.getAttribute('data-turn')),
    );
    // The page shows the newest stretch of the history, in order, with nothing missing or doubled.
    expect(shown).toEqual(history.slice(history.length - shown.length));
  });

  it('opens a long session at its newest page, reads only that page, and pages back on request', async () => {
    const long = await fixture.ledger.createSession({ label: 'a long session' });
    const inputs = Array.from({ length: 600 }, (_, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: `Message number ${index + 1} of the long session.`,
    }));
    for (let start = 0; start < inputs.length; start += 200)
      await fixture.ledger.appendTurns(long.id, inputs.slice(start, start + 200));
    const history = await historyIds(fixture.ledger, (await fixture.ledger.getSession(long.id)).headTurnId as string);

    const { page, requests } = await open(server.url, `view=timeline&session=${long.id}`);
    await page.waitForSelector(`[data-timeline] > [data-turn="${history.at(-1)}"]`);
    const pageSize = Number(await page.getAttribute('[data-timeline]', 'data-page-size'));
    expect(pageSize).toBeGreaterThan(0);
    const turnReads = (list: Request[]) => list.filter((request) => new URL(request.url()).pathname.startsWith('/v1/turns/'));
    expect(await page.$$eval('[data-timeline] > [data-turn]', (items) => items.length)).toBe(pageSize);
    // One read per turn shown, and no read of the whole history.
    expect(turnReads(requests).length).toBe(pageSize);
    expect(requests.some((request) => request.url().includes('/history'))).toBe(false);

    const before = requests.length;
    await page.click('[data-action="older"]');
    await page
      .locator('[data-timeline] > [data-turn]')
      .nth(2 * pageSize - 1)
      .waitFor();
    expect(turnReads(requests.slice(before)).length).toBe(pageSize);
    const shown = await page.$$eval('[data-timeline] > [data-turn]', (items) =>
      items.map((item) => item.getAttribute('data-turn')),
    );
    expect(shown).toEqual(history.slice(-2 * pageSize));
  });

  it('with a token, sends it to /v1 only, and says what is wrong without it', async () => {
    const token = 'viewer-test-token-5f2c';
    const guarded = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0, token });
    try {
      const { page, requests } = await open(guarded.url, `token=${token}&view=timeline&session=${fixture.fork.id}`);
      await page.waitForSelector(`[data-timeline] [data-turn="${fixture.fork.headTurnId}"]`);
      expect(await page.$$eval('.tree a[data-session]', (links) => links.length)).toBeGreaterThanOrEqual(3);
      const api = requests.filter((request) => new URL(request.url()).pathname.startsWith('/v1/'));
      const files = requests.filter(
        (request) => !new URL(request.url()).pathname.startsWith('/v1/') && !request.url().startsWith('data:'),
      );
      expect(api.length).toBeGreaterThan(0);
      expect(files.length).toBeGreaterThan(0);
      for (const request of api) expect((await request.allHeaders()).authorization).toBe(`Bearer ${token}`);
      for (const request of files) expect((await request.allHeaders()).authorization).toBeUndefined();
      // The token never travels in a query string.
      expect(requests.filter((request) => request.url().includes(token))).toEqual([]);
      expect(
        requests.filter((request) => !request.url().startsWith('data:') && new URL(request.url()).origin !== guarded.url),
      ).toEqual([]);
      expect(viewer.watched?.errors).toEqual([]);
      await page.context().close();

      const without = await open(guarded.url, `view=timeline&session=${fixture.fork.id}`);
      expect(await without.page.textContent('#sessions [role="alert"]')).toContain('UNAUTHORIZED');
      expect(await without.page.textContent('#main [role="alert"]')).toContain('Authorization: Bearer');
      // The refused stream gives up rather than retrying; its 401s (and the others) were expected.
      await without.page.waitForSelector('#live:text-is("no live updates")');
      expect(without.errors.length).toBeGreaterThan(0);
      expect(without.errors.every((error) => error.includes('401'))).toBe(true);
      without.errors.length = 0;
    } finally {
      await guarded.close();
    }
  });
});
