// The web viewer in real Chromium against a real server on a real ledger: what a person sees in
// each view is checked against what the ledger itself answers (history, compactions and what they
// stand for, search hits and `via`, the context's pieces, topics), and no view reaches outside
// the server's origin. Imported sessions are told apart by name in the sidebar and in search,
// tool inputs keep their line breaks, and pi's branch summaries say what they are.

import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../src/index.ts';
import { chromiumUnavailable, type WatchedPage } from './viewer-browser.ts';
import { historyIds, type ViewerFixture } from './viewer-fixture.ts';
import { useViewerHarness } from './viewer-harness.ts';

const unavailable = chromiumUnavailable();
if (unavailable) console.warn(`viewer browser tests skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)(unavailable ? `viewer (skipped: ${unavailable})` : 'the web viewer in Chromium', () => {
  const viewer = useViewerHarness();
  let fixture: ViewerFixture;
  let server: RunningHttpServer;
  beforeAll(() => {
    ({ fixture, server } = viewer);
  });

  const open = (fragment = ''): Promise<WatchedPage> => viewer.open(`${server.url}/${fragment ? `#${fragment}` : ''}`);

  async function timelineIds(page: WatchedPage['page']): Promise<string[]> {
    return page.$$eval('[data-timeline] > [data-turn]', (items) => items.map((item) => item.getAttribute('data-turn') ?? ''));
  }

  it('lists every session, each fork nested under the session it came from, and opens the fork', async () => {
    const { page } = await open();
    const roots = await page.$$eval('.tree > li > a', (links) => links.map((link) => link.getAttribute('data-session')));
    const { titled, untitled, codex, pi } = fixture.imported;
    expect(roots.sort()).toEqual([fixture.migration.id, fixture.topics.id, titled.id, untitled.id, codex.id, pi.id].sort());
    const nested = page.locator(
      `.tree > li:has(> a[data-session="${fixture.migration.id}"]) > ul a[data-session="${fixture.fork.id}"]`,
    );
    await expect(nested.count()).resolves.toBe(1);

    await nested.click();
    await page.waitForSelector(`[data-timeline="${fixture.fork.id}"] [data-turn]`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.textContent('.session-head')).toContain(
      `forked from ${fixture.migration.id} at ${fixture.fork.forkedFromTurnId}`,
    );
    const expected = await historyIds(fixture.ledger, fixture.fork.headTurnId as string);
    expect(await timelineIds(page)).toEqual(expected);
    // Where the line passes from the source session into the fork, a marker says so.
    expect(await page.getAttribute('[data-fork-point]', 'data-fork-point')).toBe(fixture.fork.forkedFromTurnId);
    expect(await page.$$eval('.turn.inherited', (items) => items.length)).toBe(expected.length - 2);
  });

  it('draws each compaction where it happened, with its tokens before and after and the turns its summary cites', async () => {
    const { page } = await open(`view=timeline&session=${fixture.migration.id}`);
    expect(await timelineIds(page)).toEqual(await historyIds(fixture.ledger, fixture.migration.headTurnId as string));
    const boundaries = await page.$$eval('[data-timeline] > [data-compaction]', (items) =>
      items.map((item) => ({
        id: item.getAttribute('data-turn'),
        tokens: item.querySelector('[data-field="tokens"]')?.textContent,
      })),
    );
    expect(boundaries).toEqual(
      fixture.compactions.map((turn) => ({ id: turn.id, tokens: `${turn.tokensBefore} → ${turn.tokensAfter}` })),
    );
    // Each boundary shows, unasked, the events cited by the turns it stands for.
    for (const compaction of fixture.compactions) {
      const events = page.locator(`[data-turn="${compaction.id}"] > [data-field="cited-events"]`);
      await page.locator(`[data-timeline] > [data-turn="${compaction.id}"]`).scrollIntoViewIfNeeded();
      await page.waitForSelector(`[data-turn="${compaction.id}"] > [data-field="cited-events"][data-read="true"]`, {
        state: 'attached',
      });
      const summarized = await fixture.ledger.getSummarizedTurns(compaction.id);
      const expected = [...new Set(summarized.flatMap((turn) => (turn.turnType === 'normal' ? turn.eventIds : [])))];
      expect(
        await events.locator('[data-event]').evaluateAll((chips) => chips.map((chip) => chip.getAttribute('data-event'))),
      ).toEqual(expected);
    }
    expect(await page.locator(`[data-field="cited-events"] [data-event="${fixture.eventId}"]`).count()).toBe(1);
    const first = fixture.compactions[0];
    const cited = await page.$$eval(`[data-turn="${first?.id}"] a.chip`, (links) => links.map((link) => link.textContent));
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(first?.summary).toContain(`[${id}]`);
  });

  it('expands every compaction to exactly the turns it stands for', async () => {
    const { page } = await open(`view=timeline&session=${fixture.migration.id}`);
    for (const compaction of fixture.compactions) {
      await page.click(`[data-timeline] > [data-turn="${compaction.id}"] [data-action="expand"]`);
      await page.waitForSelector(`[data-covered="${compaction.id}"] > [data-turn]`);
      const shown = await page.$$eval(`[data-covered="${compaction.id}"] > [data-turn]`, (items) =>
        items.map((item) => item.getAttribute('data-turn')),
      );
      const summarized = await fixture.ledger.getSummarizedTurns(compaction.id);
      expect(shown).toEqual(summarized.map((turn) => turn.id));
    }
    // The first compaction stands for the turn that cites the inbound event: a click reads the event.
    const boundaryEvents = `[data-turn="${fixture.compactions[0]?.id}"] > [data-field="cited-events"]`;
    await page.click(`${boundaryEvents} [data-event="${fixture.eventId}"]`);
    await page.waitForSelector(`${boundaryEvents} .event-detail .prose`);
    const detail = await page.textContent(`${boundaryEvents} .event-detail`);
    expect(detail).toContain('slack:#payments');
    expect(detail).toContain('PAY-1874');
  });

  it('searches the whole history: a summarized match shows as its compaction, via the turn that matched', async () => {
    const { page } = await open();
    await page.fill('#search-input', 'pgbouncer');
    await page.press('#search-input', 'Enter');
    await page.waitForSelector('[data-hit]');
    const expected = await fixture.ledger.search('pgbouncer', { limit: 20 });
    const hits = await page.$$eval('[data-hit]', (items) =>
      items.map((item) => ({
        turnId: item.getAttribute('data-hit'),
        via: item.querySelector('[data-via]')?.getAttribute('data-via') ?? null,
      })),
    );
    expect(hits).toEqual(expected.hits.map((hit) => ({ turnId: hit.turnId, via: hit.via })));
    const summarized = expected.hits.find((hit) => hit.via !== null);
    expect(summarized, 'a hit inside summarized turns').toBeDefined();

    // Following `via` opens the timeline at the raw turn that matched.
    await page.click(`[data-via="${summarized?.via}"] a`);
    await page.waitForSelector(`.turn.focus[data-turn="${summarized?.via}"]`);

    // The raw view lists raw turns only, none via a compaction.
    await page.fill('#search-input', 'pgbouncer');
    await page.check('#search-raw');
    await page.press('#search-input', 'Enter');
    await page.waitForSelector('[data-search-results][data-view="raw"] [data-hit]');
    const raw = await fixture.ledger.search('pgbouncer', { view: 'raw', limit: 20 });
    const hitIds = () => page.$$eval('[data-hit]', (items) => items.map((item) => item.getAttribute('data-hit')));
    expect(await hitIds()).toEqual(raw.hits.map((hit) => hit.turnId));
    expect(await page.$$eval('[data-via]', (items) => items.length)).toBe(0);

    // Ticking the box again runs the search on screen again, without pressing Search.
    await page.uncheck('#search-raw');
    await page.waitForSelector('[data-search-results][data-view="resolved"] [data-hit]', { timeout: 5000 });
    expect(await hitIds()).toEqual(expected.hits.map((hit) => hit.turnId));
    expect(await page.$$eval('[data-via]', (items) => items.length)).toBeGreaterThan(0);
    await page.check('#search-raw');
    await page.waitForSelector('[data-search-results][data-view="raw"] [data-hit]', { timeout: 5000 });
    expect(await hitIds()).toEqual(raw.hits.map((hit) => hit.turnId));
  });

  it('names imported sessions by what tells them apart, with the tool, date and turn count after, the label on hover', async () => {
    const { page } = await open();
    const { titled, untitled, codex, pi } = fixture.imported;
    const shown = async (id: string) =>
      page.$eval(`.tree a[data-session="${id}"]`, (link) => {
        const label = link.querySelector('.label');
        return {
          name: label?.textContent,
          about: link.querySelector('[data-field="about"]')?.textContent,
          title: link.getAttribute('title'),
          // The name is drawn whole, not cut at the sidebar's edge.
          cut: !label || label.scrollWidth > label.clientWidth,
        };
      });
    const turns = async (session: ViewerFixture['migration']) =>
      (await historyIds(fixture.ledger, session.headTurnId as string)).length;
    expect(await shown(titled.id)).toEqual({
      name: 'Fix the retry loop',
      about: `payments-service · claude-code · 2026-05-01 09:00 · ${await turns(titled)} turns`,
      title: titled.label,
      cut: false,
    });
    expect(await shown(untitled.id)).toEqual({
      name: 'payments-gateway',
      about: 'claude-code · 2026-05-02 14:30 · 1 turn',
      title: untitled.label,
      cut: false,
    });
    expect(await shown(codex.id)).toMatchObject({ name: 'payments-service', about: `codex · 2026-05-03 10:15 · 5 turns` });
    expect(await shown(pi.id)).toMatchObject({ name: 'ledger-ui', about: 'pi · 2026-05-04 16:00 · 3 turns' });
    // A session a person labelled keeps its label, with the day it was created; a fork counts its whole line.
    const created = new Date(fixture.migration.createdAt).toISOString().slice(0, 16).replace('T', ' ');
    expect(await shown(fixture.migration.id)).toMatchObject({
      name: fixture.migration.label,
      about: `${created} · ${await turns(fixture.migration)} turns`,
    });
    expect((await shown(fixture.fork.id)).about).toMatch(new RegExp(` · ${await turns(fixture.fork)} turns$`));
  });

  it('names the session of each search hit as the sidebar does, with its label and id on hover', async () => {
    const { page } = await open('view=search&q=attempts');
    const expected = await fixture.ledger.search('attempts', { limit: 20 });
    const { titled, codex } = fixture.imported;
    const names: Record<string, string> = { [titled.id]: 'Fix the retry loop', [codex.id]: 'payments-service' };
    expect(new Set(expected.hits.map((hit) => hit.sessionId))).toEqual(new Set(Object.keys(names)));
    const shown = await page.$$eval('[data-hit]', (items) =>
      items.map((item) => {
        const link = item.querySelector('[data-hit-session]');
        return { id: link?.getAttribute('data-hit-session'), name: link?.textContent, title: link?.getAttribute('title') };
      }),
    );
    const labels: Record<string, string | null> = { [titled.id]: titled.label, [codex.id]: codex.label };
    expect(shown).toEqual(
      expected.hits.map((hit) => ({
        id: hit.sessionId,
        name: names[hit.sessionId],
        title: `${labels[hit.sessionId]}\n${hit.sessionId}`,
      })),
    );
  });

  it('shows a tool call’s long input with its own line breaks: a Codex patch, a file body, long JSON', async () => {
    const { codex, titled, patch } = fixture.imported;
    const { page } = await open(`view=timeline&session=${codex.id}`);
    const call = (name: string) => page.locator(`[data-timeline] > .turn:has-text("→ ${name}")`);
    expect(await call('apply_patch').locator('pre.tool-input').allTextContents()).toEqual([patch]);
    expect(await call('apply_patch').textContent()).not.toContain('\\n');
    // JSON without a multi-line field is pretty-printed below the call.
    const shell = await call('shell').locator('pre.tool-input').textContent();
    expect(JSON.parse(shell ?? '')).toMatchObject({ workdir: '/home/dev/payments-service' });
    expect(shell?.split('\n').length).toBeGreaterThan(3);

    // Beside other fields, the multi-line one is named; the others stay on the call's line.
    const written = await historyIds(fixture.ledger, titled.headTurnId as string);
    const turn = await fixture.ledger.getTurn(written[1] as string);
    const input = turn.turnType === 'normal' && turn.content[1]?.type === 'tool_use' ? turn.content[1].input : null;
    await page.goto(`${server.url}/#view=timeline&session=${titled.id}`);
    const write = page.locator(`[data-timeline="${titled.id}"] > [data-turn="${turn.id}"]`);
    expect(await write.locator('pre.tool-input[data-name="content"]').textContent()).toBe((input as { content: string }).content);
    expect(await write.locator('.prose').textContent()).toContain(
      `→ Write({"file_path":"${(input as { file_path: string }).file_path}"})`,
    );
  });

  it('labels a pi branch summary as such, not as a user turn', async () => {
    const { pi, branchSummaryTurnId } = fixture.imported;
    const { page } = await open(`view=timeline&session=${pi.id}`);
    const roles = await page.$$eval('[data-timeline] > [data-turn]', (items) =>
      items.map((item) => [item.getAttribute('data-turn'), item.querySelector('.role')?.textContent]),
    );
    const ids = await historyIds(fixture.ledger, pi.headTurnId as string);
    expect(roles).toEqual([
      [ids[0], 'user'],
      [branchSummaryTurnId, 'branch summary'],
      [ids[2], 'assistant'],
    ]);
  });

  it('shows the context that would be sent at a turn, piece by piece with its provenance', async () => {
    const head = fixture.migration.headTurnId as string;
    const { page } = await open(`view=context&session=${fixture.migration.id}&turn=${head}&budget=400`);
    await page.waitForSelector('[data-context]');
    const built = await fixture.ledger.buildContext(head, { budgetTokens: 400 });
    expect(built.compactionTurnId).not.toBeNull();
    expect(await page.textContent('[data-piece="system"] h3')).toContain(`summary from compaction ${built.compactionTurnId}`);
    expect(await page.textContent('[data-field="context-tokens"]')).toBe(`${built.tokens} tok`);
    const pieces = await page.$$eval('[data-piece="turn"]', (items) => items.map((item) => item.getAttribute('data-turn')));
    expect(pieces).toEqual(built.includedTurnIds);
    expect(pieces.length).toBeGreaterThan(0);

    // The form rebuilds it with another budget, through the address (so it can be bookmarked).
    await page.fill('[data-context-form] input[name="budget"]', '250');
    await page.click('[data-context-form] button[type="submit"]');
    const smaller = await fixture.ledger.buildContext(head, { budgetTokens: 250 });
    await page.waitForSelector(`[data-field="context-tokens"]:text-is("${smaller.tokens} tok")`);
    expect(await page.$$eval('[data-piece="turn"]', (items) => items.map((item) => item.getAttribute('data-turn')))).toEqual(
      smaller.includedTurnIds,
    );
  });

  it('lists the union-find topics of a session and expands one to its turns', async () => {
    const topics = await fixture.ledger.topics(fixture.topics.id);
    expect(topics.length).toBeGreaterThanOrEqual(2);
    const { page } = await open(`view=topics&session=${fixture.topics.id}`);
    await page.waitForSelector('[data-topic]');
    expect(await page.$$eval('[data-topic]', (items) => items.map((item) => item.getAttribute('data-topic')))).toEqual(
      topics.map((topic) => topic.id),
    );
    const topic = topics[1] as (typeof topics)[number];
    await page.click(`[data-topic="${topic.id}"] [data-action="expand-topic"]`);
    await page.waitForSelector(`[data-topic-turns="${topic.id}"] [data-turn]`);
    const members = await fixture.ledger.expandTopic(topic.id, { sessionId: fixture.topics.id });
    expect(
      await page.$$eval(`[data-topic-turns="${topic.id}"] > [data-turn]`, (items) =>
        items.map((item) => item.getAttribute('data-turn')),
      ),
    ).toEqual(members.map((turn) => turn.id));
  });
});
