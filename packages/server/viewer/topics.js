// The union-find topics of a session: each cluster's summary, size and cost, and its member turns
// on request (expand), so any line a context injects can be traced back to what was said.

import { getJson, itemsOf, segment } from './api.js';
import { collapsible, errorBox, formatTime, formatTokens, h, replaceChildren } from './dom.js';
import { renderTurn } from './turn-item.js';

export async function renderTopics(container, session, { openTopicId = null } = {}) {
  replaceChildren(container, h('p', { class: 'muted' }, 'Loading topics…'));
  let topics;
  try {
    topics = itemsOf(await getJson(`/v1/sessions/${segment(session.id)}/topics`), 'topics');
  } catch (error) {
    replaceChildren(container, errorBox(error));
    return;
  }
  if (topics.length === 0) {
    replaceChildren(
      container,
      h(
        'p',
        { class: 'empty' },
        'No topics: topics come from a union-find compaction, and this session has none on its line yet',
        session.compactionStrategy === 'union-find'
          ? '.'
          : ` (its strategy is ${session.compactionStrategy ?? 'the ledger default'}).`,
      ),
    );
    return;
  }
  const panels = topics.map((topic) => renderTopic(topic, session));
  replaceChildren(
    container,
    h('p', { class: 'muted' }, `${topics.length} topics from compaction ${topics[0].compactionId}.`),
    panels.map((panel) => panel.element),
  );
  const open = panels.find((panel) => panel.topic.id === openTopicId);
  if (open) {
    open.element.scrollIntoView({ block: 'start' });
    await open.expand();
  }
}

function renderTopic(topic, session) {
  const members = h('div', { hidden: true });
  const button = h('button', { type: 'button', 'data-action': 'expand-topic' }, `Show its ${topic.members} turns`);
  let loaded = false;
  const expand = async () => {
    members.hidden = false;
    button.textContent = 'Hide its turns';
    if (loaded) return;
    loaded = true;
    replaceChildren(members, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const turns = itemsOf(await getJson(`/v1/topics/${segment(topic.id)}/turns`, { session: session.id }), 'turns');
      replaceChildren(
        members,
        h(
          'ol',
          { class: 'turns', 'data-topic-turns': topic.id },
          turns.map((turn) => renderTurn(turn, { sessionId: session.id })),
        ),
      );
    } catch (error) {
      loaded = false;
      replaceChildren(members, errorBox(error));
    }
  };
  button.addEventListener('click', () => {
    if (members.hidden) expand();
    else {
      members.hidden = true;
      button.textContent = `Show its ${topic.members} turns`;
    }
  });
  const element = h(
    'section',
    { class: 'panel', 'data-topic': topic.id },
    h(
      'h3',
      {},
      h('span', { class: 'id' }, topic.id),
      h(
        'span',
        { class: 'muted' },
        ` · ${topic.members} turns · block ${formatTokens(topic.tokens)} · members ${formatTokens(topic.memberTokens)}`,
      ),
      topic.dirty ? h('span', { class: 'muted' }, ' · summary pending') : null,
      topic.dropped ? h('span', { class: 'via' }, ' · dropped from contexts') : null,
    ),
    h('div', { class: 'muted' }, `${formatTime(topic.firstTimestamp)} – ${formatTime(topic.lastTimestamp)}`),
    collapsible(topic.summary ?? topic.preview ?? '', { lines: 5 }),
    h('div', { class: 'chips' }, button),
    members,
  );
  return { topic, element, expand };
}
