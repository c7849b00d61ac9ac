// One session's timeline, a page at a time: the newest turns (or those up to a chosen turn), older
// pages on request, new turns appended live from the session's stream. A page is read by following
// parent links from its newest turn, so opening a session of 100,000 turns reads 50 of them, and
// the list in the page only ever holds what was asked for.

import { getJson, readNdjson, segment, walkBack } from './api.js';
import { errorBox, h, replaceChildren } from './dom.js';
import { href } from './route.js';
import { renderTurn } from './turn-item.js';

export const PAGE_SIZE = 50;
/** Turns read between two draws while a page fills. */
const DRAW_EVERY = 10;

/**
 * Renders the timeline of `session` into `container`, ending at `atTurnId` (or the head). Returns
 * a handle whose `onHead(headTurnId)` appends what the stream announces.
 */
export function renderTimeline(container, session, { atTurnId = null } = {}) {
  const list = h('ol', { class: 'turns', 'data-timeline': session.id, 'data-page-size': PAGE_SIZE });
  const olderBar = h('div', { class: 'pager' });
  const newerBar = h('div', { class: 'pager' });
  const status = h('div', {});
  replaceChildren(container, olderBar, list, newerBar, status);
  // Newest first: loaded[0] is the newest turn shown, loaded.at(-1) the oldest.
  const loaded = [];
  const anchored = atTurnId !== null && atTurnId !== session.headTurnId;
  let busy = Promise.resolve();

  const showPagers = () => {
    const oldest = loaded.at(-1);
    replaceChildren(
      olderBar,
      oldest?.parentTurnId
        ? h(
            'button',
            { type: 'button', 'data-action': 'older', onclick: () => queue(loadOlder) },
            `Load ${PAGE_SIZE} older turns`,
          )
        : h('span', {}, loaded.length ? 'Start of the history.' : ''),
      h(
        'span',
        {},
        `${loaded.length} turn${loaded.length === 1 ? '' : 's'} shown`,
        oldest ? ` (depth ${oldest.depth}–${loaded[0].depth})` : '',
      ),
    );
    replaceChildren(
      newerBar,
      anchored ? h('a', { href: href({ view: 'timeline', session: session.id }) }, 'Newer turns: go to the head →') : null,
    );
  };

  const queue = (work) => {
    busy = busy.then(work).catch((error) => replaceChildren(status, errorBox(error)));
    return busy;
  };

  const loadFirst = async () => {
    const end = atTurnId ?? session.headTurnId;
    if (!end) {
      replaceChildren(status, h('p', { class: 'empty' }, 'This session has no turns yet.'));
      showPagers();
      return;
    }
    const endTurn = await getJson(`/v1/turns/${segment(end)}`);
    if (endTurn.depth < PAGE_SIZE) {
      // A short history is one streamed request.
      loaded.push(...(await readNdjson(`/v1/turns/${segment(end)}/history`, { limit: PAGE_SIZE })).reverse());
      draw();
    } else {
      loaded.push(endTurn);
      draw();
      await prependOlder(endTurn.parentTurnId, PAGE_SIZE - 1);
    }
    showPagers();
    if (atTurnId) document.getElementById(`turn-${atTurnId}`)?.scrollIntoView({ block: 'center' });
  };

  const loadOlder = () => prependOlder(loaded.at(-1)?.parentTurnId, PAGE_SIZE);

  /**
   * Reads `count` turns back from `fromId`, drawing them above the list a few at a time: each read
   * waits for the one before (it names the next parent), so the page fills while it reads.
   */
  const prependOlder = async (fromId, count) => {
    let next = fromId;
    let remaining = count;
    while (next && remaining > 0) {
      const chunk = await walkBack(next, { count: Math.min(DRAW_EVERY, remaining) });
      if (chunk.length === 0) break;
      const after = loaded.at(-1) ?? null;
      loaded.push(...chunk);
      const first = list.firstChild;
      for (const node of itemsFor([...chunk].reverse(), after)) list.insertBefore(node, first);
      showPagers();
      remaining -= chunk.length;
      next = chunk.at(-1).parentTurnId;
    }
  };

  /** Turns oldest first as list items, with a marker where the line passes into another session. */
  const itemsFor = (turnsOldestFirst, nextTurn) => {
    const items = [];
    turnsOldestFirst.forEach((turn, index) => {
      items.push(renderTurn(turn, { sessionId: session.id, focus: turn.id === atTurnId }));
      const following = turnsOldestFirst[index + 1] ?? nextTurn;
      if (following && following.sessionId !== turn.sessionId) items.push(forkMarker(following, turn));
    });
    return items;
  };

  const draw = () => replaceChildren(list, itemsFor([...loaded].reverse(), null));

  const onHead = (headTurnId) =>
    queue(async () => {
      // A compaction and the head it became arrive as two events: the second finds it drawn.
      if (anchored || !headTurnId || loaded.some((turn) => turn.id === headTurnId)) return;
      const newest = loaded[0];
      const fresh = await walkBack(headTurnId, { count: PAGE_SIZE, stopAtId: newest?.id ?? null });
      if (newest && fresh.at(-1)?.parentTurnId !== newest.id) {
        // More arrived than a page (or the line changed): start again from the new head.
        loaded.length = 0;
        loaded.push(...fresh);
        draw();
      } else {
        loaded.unshift(...fresh);
        for (const node of itemsFor([...fresh].reverse(), null)) list.append(node);
      }
      session.headTurnId = headTurnId;
      replaceChildren(status);
      showPagers();
    });

  queue(loadFirst);
  return { onHead, ready: () => busy };
}

function forkMarker(forkTurn, forkPoint) {
  return h(
    'li',
    { class: 'fork-point', 'data-fork-point': forkPoint.id },
    `↳ ${forkTurn.sessionId} continues from ${forkPoint.sessionId} at ${forkPoint.id}`,
  );
}
