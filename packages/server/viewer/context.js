// The context that would be sent at a turn, piece by piece with where each piece comes from: the
// system prompt and the compaction whose summary it carries, the topics and retrieved turns it
// injects, then each raw turn with its id and the events it cites. Budget and query are the
// API's own parameters, so what is shown is exactly what `GET /v1/turns/{id}/context` returns.

import { getJson, getTurn, segment } from './api.js';
import { collapsible, contentNodes, errorBox, formatTokens, h, replaceChildren, turnKind } from './dom.js';
import { href, navigate } from './route.js';
import { eventChips } from './turn-item.js';

/** Raw turns shown one by one at most; beyond that the newest are shown and the rest counted. */
const PIECE_LIMIT = 200;

export async function renderContext(container, session, { turnId, budget = '', query = '', retrieval = false }) {
  const at = turnId || session.headTurnId;
  const form = h(
    'form',
    { class: 'toolbar', 'data-context-form': '' },
    h('label', {}, 'at turn ', h('input', { type: 'text', name: 'turn', value: at ?? '', size: 12, class: 'id' })),
    h('label', {}, 'budget ', h('input', { type: 'number', name: 'budget', min: 0, value: budget, placeholder: 'none' })),
    h('label', {}, 'query ', h('input', { type: 'text', name: 'query', value: query, placeholder: 'incoming message' })),
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', name: 'retrieval', checked: retrieval }),
      ' retrieval for the query',
    ),
    h('button', { type: 'submit' }, 'Build context'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    navigate({
      view: 'context',
      session: session.id,
      turn: data.get('turn'),
      budget: data.get('budget'),
      query: data.get('query'),
    });
  });
  const output = h('div', {}, h('p', { class: 'muted' }, 'Building…'));
  replaceChildren(container, form, output);
  if (!at) {
    replaceChildren(output, h('p', { class: 'empty' }, 'This session has no turns yet.'));
    return;
  }
  try {
    const context = await getJson(`/v1/turns/${segment(at)}/context`, {
      budget,
      query,
      session: session.id,
      retrieval: retrieval ? 'true' : undefined,
    });
    replaceChildren(output, await renderPieces(context, session));
  } catch (error) {
    replaceChildren(output, errorBox(error));
  }
}

async function renderPieces(context, session) {
  const included = context.includedTurnIds ?? [];
  const shownIds = included.slice(-PIECE_LIMIT);
  const turns = await mapLimited(shownIds, 6, (id) => getTurn(id));
  const cited = context.citedEvents ?? {};
  const link = (id) => h('a', { class: 'id', href: href({ view: 'timeline', session: session.id, at: id }) }, id);
  const firstMessage = context.messages?.[0];
  const marker = included.length === shownIds.length ? continuationMarker(firstMessage, turns[0]) : null;
  return h(
    'div',
    { 'data-context': '' },
    h(
      'div',
      { class: 'totals' },
      h('strong', { 'data-field': 'context-tokens' }, formatTokens(context.tokens)),
      h('span', {}, plural(context.messages?.length ?? 0, 'message')),
      h('span', {}, plural(included.length, 'raw turn')),
      h('span', {}, `${context.droppedTurnIds?.length ?? 0} left out for the budget`),
      context.summaryTruncated ? h('span', { class: 'via' }, 'summary cut to fit') : null,
    ),
    h(
      'section',
      { class: 'panel piece system', 'data-piece': 'system' },
      h(
        'h3',
        {},
        'system',
        h('span', { class: 'muted' }, ' · '),
        context.compactionTurnId
          ? h('span', {}, 'summary from compaction ', link(context.compactionTurnId))
          : h('span', { class: 'muted' }, 'no compaction yet'),
      ),
      context.system ? collapsible(context.system, { lines: 8 }) : h('p', { class: 'muted' }, '(empty)'),
    ),
    context.topics?.length
      ? h(
          'section',
          { class: 'panel piece topic', 'data-piece': 'topics' },
          h('h3', {}, `topics injected into system (${context.topics.length})`),
          h(
            'div',
            { class: 'chips' },
            context.topics.map((topic) =>
              h(
                'a',
                { class: 'chip', href: href({ view: 'topics', session: session.id, topic: topic.id }) },
                `${topic.id} · ${topic.members} turns · ${topic.tokens} tok${topic.similarity === null ? '' : ` · sim ${topic.similarity.toFixed(2)}`}`,
              ),
            ),
          ),
          context.omittedTopicIds?.length
            ? h('p', { class: 'muted' }, `left out for the budget: ${context.omittedTopicIds.join(', ')}`)
            : null,
        )
      : null,
    context.retrievedTurnIds?.length
      ? h(
          'section',
          { class: 'panel piece retrieved', 'data-piece': 'retrieved' },
          h('h3', {}, `turns retrieved for the query (${context.retrievedTurnIds.length})`),
          h(
            'div',
            { class: 'chips' },
            context.retrievedTurnIds.map((id) =>
              h('a', { class: 'chip', href: href({ view: 'timeline', session: session.id, at: id }) }, id),
            ),
          ),
        )
      : null,
    marker,
    included.length > shownIds.length
      ? h('p', { class: 'muted' }, `${included.length - shownIds.length} older raw turns not shown.`)
      : null,
    turns.map((turn) =>
      h(
        'section',
        { class: `panel piece ${turn.role}`, 'data-piece': 'turn', 'data-turn': turn.id },
        h(
          'h3',
          {},
          `${turnKind(turn)} `,
          h('span', { class: 'muted' }, '· raw turn '),
          link(turn.id),
          h(
            'span',
            { class: 'muted' },
            ` · ${formatTokens(turn.tokenCount)}${turn.sessionId === session.id ? '' : ` · from ${turn.sessionId}`}`,
          ),
        ),
        collapsible(contentNodes(turn.content), { lines: 6 }),
        eventChips(cited[turn.id]),
      ),
    ),
  );
}

/** The ledger opens with a user message when the kept turns start with the assistant. */
function continuationMarker(firstMessage, firstTurn) {
  if (!firstMessage || !firstTurn || firstMessage.role === firstTurn.role) return null;
  return h(
    'section',
    { class: 'panel piece', 'data-piece': 'marker' },
    h('h3', {}, 'user ', h('span', { class: 'muted' }, '· added by the ledger so the messages start with the user')),
    h('div', { class: 'prose' }, contentNodes(firstMessage.content)),
  );
}

async function mapLimited(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
