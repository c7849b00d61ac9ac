// Search over the whole history. In the resolved view a match inside summarized turns comes back
// as the compaction that stands for it, with `via` naming the matching turn: both are links, so a
// person sees what the model sees now and what was actually said. Each hit names its session the
// way the sidebar does, with the label and id on hover.

import { getJson, itemsOf } from './api.js';
import { errorBox, formatTime, h, replaceChildren, snippetNodes } from './dom.js';
import { sessionName, sessionsById } from './names.js';
import { href } from './route.js';

const PAGE = 20;

export async function renderSearch(container, { query, raw = false, sessionId = null }) {
  const results = h('ol', { class: 'turns', 'data-search-results': '', 'data-view': raw ? 'raw' : 'resolved' });
  const more = h('div', { class: 'pager' });
  replaceChildren(
    container,
    h('h1', {}, 'Search'),
    h(
      'p',
      { class: 'muted' },
      raw
        ? 'Raw view: every matching turn itself.'
        : 'Resolved view: a match in summarized turns shows as its compaction, via the turn that matched.',
      sessionId ? ` Only session ${sessionId}.` : ' Every session.',
    ),
    results,
    more,
  );
  if (!query.trim()) {
    replaceChildren(results, h('p', { class: 'empty' }, 'Type words to look for in the box above.'));
    return;
  }
  const loadPage = async (cursor) => {
    replaceChildren(more, h('span', {}, 'Searching…'));
    try {
      const page = await getJson('/v1/search', {
        q: query,
        raw: raw ? 'true' : undefined,
        session: sessionId,
        limit: PAGE,
        cursor,
      });
      const hits = itemsOf(page, 'hits');
      const sessions = await sessionsById(hits.map((hit) => hit.sessionId));
      if (!cursor && hits.length === 0) results.append(h('p', { class: 'empty' }, `No turn matches “${query}”.`));
      for (const hit of hits) results.append(renderHit(hit, sessions.get(hit.sessionId) ?? { id: hit.sessionId }));
      replaceChildren(
        more,
        page.nextCursor ? h('button', { type: 'button', onclick: () => loadPage(page.nextCursor) }, 'More results') : null,
        h('span', {}, `${results.querySelectorAll('[data-hit]').length} shown`),
      );
    } catch (error) {
      replaceChildren(more, errorBox(error));
    }
  };
  await loadPage(undefined);
}

function renderHit(hit, session) {
  const isCompaction = hit.turnType === 'compaction';
  return h(
    'li',
    { class: `turn hit ${hit.role ?? ''}`, 'data-hit': hit.turnId },
    h(
      'div',
      { class: 'turn-head' },
      h('span', { class: 'role' }, isCompaction ? 'compaction' : hit.role),
      h('a', { class: 'id', href: href({ view: 'timeline', session: hit.sessionId, at: hit.turnId }) }, hit.turnId),
      h(
        'span',
        {},
        'in ',
        h(
          'a',
          {
            href: href({ view: 'timeline', session: hit.sessionId }),
            title: session.label ? `${session.label}\n${hit.sessionId}` : hit.sessionId,
            'data-hit-session': hit.sessionId,
          },
          sessionName(session).name,
        ),
      ),
      h('span', {}, formatTime(hit.timestamp)),
      hit.via
        ? h(
            'span',
            { class: 'via', 'data-via': hit.via },
            'via ',
            h('a', { class: 'id', href: href({ view: 'timeline', session: hit.sessionId, at: hit.via }) }, hit.via),
            ' (summarized; the match is in that turn)',
          )
        : null,
    ),
    h('div', { class: 'prose' }, snippetNodes(hit.snippet ?? '')),
  );
}
