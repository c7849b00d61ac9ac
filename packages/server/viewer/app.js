// The viewer's entry: reads the route from the address's fragment, draws the sidebar and the view
// it names (timeline, topics, context, search), and keeps one live subscription to the session on
// screen. Each view lives in its own module; this one only wires them together.

import { getJson, segment, setToken, subscribe } from './api.js';
import { renderContext } from './context.js';
import { errorBox, h, replaceChildren } from './dom.js';
import { sessionName } from './names.js';
import { currentRoute, href, navigate } from './route.js';
import { renderSearch } from './search.js';
import { renderSessions } from './sessions.js';
import { renderTimeline } from './timeline.js';
import { renderTopics } from './topics.js';

const main = document.getElementById('main');
const sidebar = document.getElementById('sessions');
const live = document.getElementById('live');
const searchForm = document.getElementById('search-form');
const searchInput = document.getElementById('search-input');
const searchRaw = document.getElementById('search-raw');

let subscription = null;
let subscribedSessionId = null;
let onStreamEvent = () => {};

searchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  navigate({ view: 'search', q: searchInput.value, raw: searchRaw.checked ? '1' : '' });
});

// The checkbox changes which results a search has: one on screen is run again at once, in the
// same scope. Elsewhere it only sets how the next search runs.
searchRaw.addEventListener('change', () => {
  const route = currentRoute();
  if (route.view !== 'search') return;
  navigate({ view: 'search', q: searchInput.value, raw: searchRaw.checked ? '1' : '', session: route.session });
});

window.addEventListener('hashchange', () => show());
show();

async function show() {
  const route = currentRoute();
  document.body.dataset.ready = 'false';
  // Each visit draws into its own element: a slow view of a previous address draws off-page.
  const view = h('div', {});
  replaceChildren(main, view);
  setToken(route.token);
  document.getElementById('brand').setAttribute('href', href({ view: 'home' }));
  if (route.view === 'search') {
    searchInput.value = route.q ?? '';
    searchRaw.checked = route.raw === '1';
  }
  const sessionId = route.session ?? null;
  const sidebarDrawn = renderSessions(sidebar, sessionId);
  follow(sessionId);
  try {
    if (route.view === 'search') await renderSearch(view, { query: route.q ?? '', raw: route.raw === '1', sessionId });
    else if (sessionId) await showSession(view, sessionId, route);
    else showHome(view);
  } catch (error) {
    replaceChildren(view, errorBox(error));
  }
  await sidebarDrawn;
  if (main.firstChild === view) document.body.dataset.ready = 'true';
}

function showHome(view) {
  onStreamEvent = () => {};
  replaceChildren(
    view,
    h('h1', {}, 'Agent ledger'),
    h(
      'p',
      { class: 'muted' },
      'Pick a session on the left to read its timeline: every compaction is drawn where it happened, with its summary, what it stands for and the tokens it saved. Forks are nested under the session they came from. The search box looks through every turn of every session, summarized or not.',
    ),
  );
}

async function showSession(container, sessionId, route) {
  const [session, tree] = await Promise.all([
    getJson(`/v1/sessions/${segment(sessionId)}`),
    getJson(`/v1/sessions/${segment(sessionId)}/tree`).catch(() => null),
  ]);
  const view = route.view === 'topics' || route.view === 'context' ? route.view : 'timeline';
  const body = h('div', {});
  replaceChildren(container, sessionHeader(session, tree, view), body);
  onStreamEvent = () => {};
  if (view === 'topics') {
    await renderTopics(body, session, { openTopicId: route.topic ?? null });
  } else if (view === 'context') {
    await renderContext(body, session, {
      turnId: route.turn,
      budget: route.budget ?? '',
      query: route.query ?? '',
      retrieval: route.retrieval === '1',
    });
  } else {
    const timeline = renderTimeline(body, session, { atTurnId: route.at ?? null });
    onStreamEvent = (event) => {
      if (event.type === 'head') timeline.onHead(event.data.headTurnId);
      else if (event.type === 'compaction') timeline.onHead(event.data.turnId);
    };
    await timeline.ready();
  }
}

function sessionHeader(session, tree, view) {
  const settings = session.settings ?? {};
  const forks = tree?.forks ?? [];
  const tab = (name, label) =>
    h(
      'a',
      { href: href({ view: name, session: session.id }), 'aria-current': view === name ? 'page' : null, 'data-tab': name },
      label,
    );
  return h(
    'div',
    { class: 'session-head' },
    h('h1', {}, session.label ?? session.id),
    h(
      'div',
      { class: 'meta' },
      h('span', { class: 'id' }, session.id),
      h('span', {}, `head `, h('span', { class: 'id', 'data-field': 'head' }, session.headTurnId ?? 'none')),
      h('span', {}, `strategy ${session.compactionStrategy ?? 'default'}`),
      h('span', {}, `window ${settings.contextWindow} · reserve ${settings.reserveTokens} · keep ${settings.keepRecentTokens}`),
      tree ? h('span', {}, `${tree.ownTurns} own turns`) : null,
      session.parentSessionId
        ? h(
            'span',
            {},
            'forked from ',
            h(
              'a',
              { href: href({ view: 'timeline', session: session.parentSessionId, at: session.forkedFromTurnId }) },
              session.parentSessionId,
            ),
            ` at ${session.forkedFromTurnId}`,
          )
        : null,
      forks.length
        ? h(
            'span',
            {},
            `forks: `,
            forks.map((fork, index) => [
              index ? ', ' : '',
              h(
                'a',
                { href: href({ view: 'timeline', session: fork.session.id }), title: fork.session.label ?? fork.session.id },
                sessionName(fork.session).name,
              ),
            ]),
          )
        : null,
    ),
    h('nav', { class: 'tabs' }, tab('timeline', 'Timeline'), tab('topics', 'Topics'), tab('context', 'Context')),
  );
}

/** One stream at a time: the session on screen. Its events redraw the sidebar and the view. */
function follow(sessionId) {
  if (sessionId === subscribedSessionId) return;
  subscription?.close();
  subscription = null;
  subscribedSessionId = sessionId;
  live.textContent = '';
  live.classList.remove('on');
  if (!sessionId) return;
  subscription = subscribe(sessionId, (event) => {
    if (event.type === 'error') {
      live.classList.remove('on');
      live.textContent = event.data.final ? 'no live updates' : 'live updates paused, reconnecting…';
      return;
    }
    live.classList.add('on');
    live.textContent =
      event.type === 'compaction' ? `compaction ${event.data.turnId}` : `live · head ${event.data.headTurnId ?? '—'}`;
    // The header on screen is this session's: the stream is the one of the session in the address.
    const head = main.querySelector('[data-field="head"]');
    if (event.type === 'head' && head) head.textContent = event.data.headTurnId ?? 'none';
    onStreamEvent(event);
  });
}
