// One turn as a list item: a normal turn (role, id, time, tokens, text, cited events) or a
// compaction drawn as a boundary (summary, tokens before → after, what it stands for with a button
// that expands it to the raw turns, the turns its summary cites and the events those turns cite).

import { getJson, itemsOf, segment } from './api.js';
import { collapsible, contentNodes, errorBox, formatTime, formatTokens, h, replaceChildren, turnKind } from './dom.js';
import { href } from './route.js';

/** Expanding shows at most this many covered turns; the rest is a link into the timeline. */
export const EXPAND_LIMIT = 200;
/** A boundary reads what it stands for unasked (for its cited events) only up to this many turns. */
const AUTO_READ_LIMIT = 500;

export function renderTurn(turn, { sessionId, focus = false } = {}) {
  if (turn.turnType === 'compaction') return renderCompaction(turn, { sessionId, focus });
  const inherited = sessionId && turn.sessionId !== sessionId;
  const kind = turnKind(turn);
  return h(
    'li',
    {
      class: `turn ${turn.role}${inherited ? ' inherited' : ''}${focus ? ' focus' : ''}`,
      'data-kind': kind === turn.role ? null : kind,
      'data-turn': turn.id,
      id: `turn-${turn.id}`,
    },
    h(
      'div',
      { class: 'turn-head' },
      h('span', { class: 'role', title: kind === turn.role ? null : `sent as a ${turn.role} turn` }, kind),
      h('span', { class: 'id' }, turn.id),
      h('span', {}, formatTime(turn.timestamp)),
      h('span', {}, formatTokens(turn.tokenCount)),
      turn.toolCallCount ? h('span', {}, `${turn.toolCallCount} tool call${turn.toolCallCount === 1 ? '' : 's'}`) : null,
      turn.metadata?.author ? h('span', {}, `by ${turn.metadata.author}`) : null,
      inherited ? h('span', {}, `from ${turn.sessionId}`) : null,
      h(
        'span',
        { class: 'actions' },
        h('a', { href: href({ view: 'context', session: sessionId ?? turn.sessionId, turn: turn.id }) }, 'context here'),
      ),
    ),
    collapsible(contentNodes(turn.content), { lines: 8 }),
    eventChips(turn.eventIds),
  );
}

/** Chips for cited events; a click reads the event (channel, author, time, payload) from the events ledger. */
export function eventChips(eventIds, label = 'cites') {
  if (!eventIds?.length) return null;
  const detail = h('div', { class: 'event-detail', hidden: true });
  const show = async (id) => {
    detail.hidden = false;
    replaceChildren(detail, h('span', { class: 'muted' }, `Reading ${id}…`));
    try {
      const event = await getJson(`/v1/events/${segment(id)}`);
      const payload = typeof event.payload?.text === 'string' ? event.payload.text : JSON.stringify(event.payload);
      replaceChildren(
        detail,
        h(
          'div',
          { class: 'turn-head' },
          h('span', { class: 'id' }, event.id),
          h('span', {}, `${event.channel} #${event.seq}`),
          event.author ? h('span', {}, `by ${event.author}`) : null,
          h('span', {}, formatTime(event.occurredAt)),
        ),
        h('div', { class: 'prose' }, payload),
      );
    } catch (error) {
      replaceChildren(detail, errorBox(error));
    }
  };
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'chips' },
      h('span', { class: 'muted' }, `${label}:`),
      eventIds.map((id) =>
        h(
          'button',
          {
            type: 'button',
            class: 'chip event',
            title: 'show this event of the events ledger',
            'data-event': id,
            onclick: () => show(id),
          },
          id,
        ),
      ),
    ),
    detail,
  );
}

/** Turn ids the summary cites as `[t_…]` (the extractive summarizer marks each kept line). */
export function citedTurnIds(summary) {
  const ids = new Set();
  for (const match of String(summary ?? '').matchAll(/\[([A-Za-z]+_[A-Za-z0-9_-]+)\]/g)) ids.add(match[1]);
  return [...ids];
}

export function renderCompaction(turn, { sessionId, focus = false } = {}) {
  const metadata = turn.metadata ?? {};
  const covered = h('div', { class: 'covered', hidden: true });
  const expand = h(
    'button',
    { type: 'button', 'data-action': 'expand' },
    `Expand: the ${metadata.compacts ?? ''} turns it stands for`,
  );
  // What it stands for is read once: when it is expanded, or when the boundary first comes into
  // view (for the events those turns cite) if it stands for few enough turns to read unasked.
  let coveredRead = null;
  const readCovered = () => {
    coveredRead ??= coveredTurns(turn).catch((error) => {
      coveredRead = null;
      throw error;
    });
    return coveredRead;
  };
  const citedEvents = h('div', { 'data-field': 'cited-events' });
  let eventsShown = false;
  const showCitedEvents = (turns) => {
    if (eventsShown) return;
    eventsShown = true;
    citedEvents.dataset.read = 'true';
    replaceChildren(citedEvents, eventChips(citedEventIds(turns), 'the turns it stands for cite'));
  };
  let loaded = false;
  expand.addEventListener('click', async () => {
    if (!covered.hidden) {
      covered.hidden = true;
      expand.textContent = 'Expand again';
      return;
    }
    covered.hidden = false;
    expand.textContent = 'Collapse';
    if (loaded) return;
    loaded = true;
    replaceChildren(covered, h('p', { class: 'muted' }, 'Loading the turns it stands for…'));
    try {
      const turns = await readCovered();
      replaceChildren(covered, renderCovered(turns, { sessionId, turn }));
      showCitedEvents(turns);
    } catch (error) {
      loaded = false;
      replaceChildren(covered, errorBox(error));
    }
  });
  const cited = citedTurnIds(turn.summary);
  const topics = Array.isArray(metadata.topics) ? metadata.topics : [];
  const boundary = h(
    'li',
    { class: `boundary${focus ? ' focus' : ''}`, 'data-turn': turn.id, 'data-compaction': '', id: `turn-${turn.id}` },
    h(
      'h3',
      {},
      `Compaction ${turn.id}`,
      h('span', { class: 'muted' }, ` · ${turn.trigger} · ${turn.strategy} · ${formatTime(turn.timestamp)}`),
    ),
    h(
      'div',
      { class: 'figures' },
      h('span', {}, 'tokens ', h('strong', { 'data-field': 'tokens' }, `${turn.tokensBefore} → ${turn.tokensAfter}`)),
      h(
        'span',
        {},
        'stands for turns through ',
        h('a', { class: 'id', href: atTurn(sessionId, turn.summarizedThroughTurnId) }, turn.summarizedThroughTurnId),
      ),
      h('span', {}, 'raw resumes at ', turn.firstKeptTurnId ? h('span', { class: 'id' }, turn.firstKeptTurnId) : 'nothing kept'),
      metadata.compacts !== undefined ? h('span', {}, `${metadata.compacts} sources, ${metadata.sourceTokens} tok`) : null,
      h('span', {}, `summary ${formatTokens(turn.tokenCount)} by ${turn.summarizer}`),
    ),
    collapsible(turn.summary, { lines: 6 }),
    cited.length
      ? h(
          'div',
          { class: 'chips' },
          h('span', { class: 'muted' }, 'summary cites:'),
          cited.map((id) => h('a', { class: 'chip', href: atTurn(sessionId, id) }, id)),
        )
      : null,
    topics.length
      ? h(
          'div',
          { class: 'chips' },
          h('span', { class: 'muted' }, 'topics:'),
          topics.map((topic) =>
            h(
              'a',
              { class: 'chip', href: href({ view: 'topics', session: sessionId, topic: topic.id }) },
              `${topic.id} (${topic.members})`,
            ),
          ),
        )
      : null,
    citedEvents,
    h('div', { class: 'chips' }, expand),
    covered,
  );
  if (!(metadata.compacts <= AUTO_READ_LIMIT)) {
    replaceChildren(citedEvents, h('p', { class: 'muted' }, 'Expand it to see the events its turns cite.'));
    return boundary;
  }
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    readCovered()
      .then(showCitedEvents)
      .catch((error) => replaceChildren(citedEvents, errorBox(error)));
  });
  observer.observe(boundary);
  return boundary;
}

function citedEventIds(turns) {
  return [...new Set(turns.flatMap((covered) => covered.eventIds ?? []))];
}

function atTurn(sessionId, turnId) {
  return href({ view: 'timeline', session: sessionId, at: turnId });
}

/** The turns a compaction stands for, in chain order, as the ledger reports them. */
export async function coveredTurns(compaction) {
  const body = await getJson(`/v1/turns/${segment(compaction.id)}/summarized`);
  return itemsOf(body, 'turns');
}

function renderCovered(turns, { sessionId, turn }) {
  // The newest are shown: a compaction over a very long stretch stays a bounded list in the page.
  const shown = turns.slice(-EXPAND_LIMIT);
  return h(
    'div',
    {},
    h(
      'p',
      { class: 'muted' },
      `${turns.length} turn${turns.length === 1 ? '' : 's'} this summary stands for`,
      shown.length < turns.length ? ` (the newest ${shown.length} shown; ` : ':',
      shown.length < turns.length ? h('a', { href: atTurn(sessionId, shown[0]?.id) }, 'open the timeline there') : null,
      shown.length < turns.length ? ' for the rest):' : null,
    ),
    h(
      'ol',
      { class: 'turns', 'data-covered': turn.id },
      shown.map((covered) => renderTurn(covered, { sessionId })),
    ),
  );
}
