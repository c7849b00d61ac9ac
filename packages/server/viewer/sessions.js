// The sidebar: every session as a tree of forks, built from one listing (each session names the
// session it was forked from), so the tree costs one request however many forks there are. Each
// session shows its name (names.js), then when it started and how many turns its line holds.

import { errorBox, h, replaceChildren } from './dom.js';
import { listSessions, sessionName } from './names.js';
import { href } from './route.js';

/** Sessions by parent: roots are those whose parent is not in the listing. */
export function forkForest(sessions) {
  const known = new Set(sessions.map((session) => session.id));
  const children = new Map();
  const roots = [];
  const byAge = [...sessions].sort((left, right) => left.createdAt - right.createdAt || left.id.localeCompare(right.id));
  for (const session of byAge) {
    const parent = session.parentSessionId;
    if (parent && known.has(parent)) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(session);
    } else {
      roots.push(session);
    }
  }
  return { roots, children };
}

/** Sessions listed at most, newest first; older ones are reached by search or by address. */
const LISTED = 500;

/** Counts draws, so a slow listing for an earlier address never replaces a newer one. */
let draws = 0;

export async function renderSessions(container, currentSessionId) {
  const draw = ++draws;
  let sessions;
  try {
    sessions = await listSessions(LISTED);
  } catch (error) {
    if (draw === draws) replaceChildren(container, h('h2', {}, 'Sessions'), errorBox(error));
    return;
  }
  if (draw !== draws) return;
  const { roots, children } = forkForest(sessions);
  const item = (session) => {
    const forks = children.get(session.id) ?? [];
    const { name, details } = sessionName(session);
    const turns = typeof session.turnCount === 'number' ? `${session.turnCount} turn${session.turnCount === 1 ? '' : 's'}` : null;
    const link = h(
      'a',
      {
        href: href({ view: 'timeline', session: session.id }),
        'aria-current': session.id === currentSessionId ? 'page' : null,
        'data-session': session.id,
        title: session.label ?? session.id,
      },
      h('span', { class: 'label' }, session.parentSessionId ? h('span', { class: 'fork-mark' }, '↳ ') : null, name),
      // Each part stays whole; a long line wraps between parts instead of losing its end.
      h(
        'span',
        { class: 'about', 'data-field': 'about' },
        [...details, turns].filter(Boolean).map((part, index) => [index ? ' · ' : '', h('span', {}, part)]),
      ),
      h(
        'span',
        { class: 'muted id' },
        session.id,
        session.forkedFromTurnId ? ` · at ${session.forkedFromTurnId}` : '',
        session.compactionStrategy ? ` · ${session.compactionStrategy}` : '',
      ),
    );
    return h('li', {}, link, forks.length ? h('ul', {}, forks.map(item)) : null);
  };
  replaceChildren(
    container,
    h('h2', {}, `Sessions (${sessions.length})`),
    sessions.length === 0 ? h('p', { class: 'empty' }, 'No sessions yet.') : h('ul', { class: 'tree' }, roots.map(item)),
    sessions.length === LISTED
      ? h('p', { class: 'muted' }, `The newest ${LISTED} sessions are listed; search reaches every one.`)
      : null,
  );
}
