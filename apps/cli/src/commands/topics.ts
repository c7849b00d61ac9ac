// `nexus topics`, `nexus expand`, `nexus find`, `nexus drop-topic`: the union-find forest of a
// session, and how to trace a summary back to its turns.

import { stringOption } from '../arguments.ts';
import type { Command } from '../command.ts';
import { clip, turnLine } from '../render.ts';

const SESSION_OPTION = {
  session: { type: 'string', description: 'view as this session (default: the session that wrote the turn)', valueName: 'ID' },
} as const;

export const topicsCommand: Command = {
  path: ['topics'],
  readsOnly: true,
  summary: 'List the topics (union-find clusters) of a session, with token counts and a preview.',
  arguments: ['<sessionId>'],
  options: {},
  details:
    'Topics come from the newest union-find compaction on the session’s line; a session compacted with flat has none. ' +
    'JSON: an array of { id, members, tokens, summary, dirty, dropped, … }.',
  async run({ positionals, io, openLedger }) {
    const topics = await openLedger().topics(positionals[0] as string);
    if (topics.length === 0) io.print('no topics: the session has no union-find compaction yet');
    for (const topic of topics) {
      const flags = [topic.dirty ? 'dirty' : '', topic.dropped ? 'dropped' : ''].filter(Boolean).join(', ');
      io.print(
        `${topic.id}  ${String(topic.members).padStart(4)} turn${topic.members === 1 ? ' ' : 's'}  ${String(topic.tokens).padStart(5)} tokens (of ${topic.memberTokens})` +
          `${flags ? `  [${flags}]` : ''}  ${clip(topic.preview, 70)}`,
      );
    }
    return topics;
  },
};

export const expandCommand: Command = {
  path: ['expand'],
  readsOnly: true,
  summary: 'List the turns a topic stands for, oldest first.',
  arguments: ['<clusterId>'],
  options: { ...SESSION_OPTION },
  details: 'A topic id is the id of its root turn (see `nexus topics`). JSON: an array of turns.',
  async run({ positionals, options, io, openLedger }) {
    const turns = await openLedger().expandTopic(positionals[0] as string, { sessionId: stringOption(options.session) });
    for (const turn of turns) io.print(turnLine(turn));
    return turns;
  },
};

export const findCommand: Command = {
  path: ['find'],
  readsOnly: true,
  summary: 'Show the topic that stands for a turn, and the compaction covering it.',
  arguments: ['<turnId>'],
  options: { ...SESSION_OPTION },
  details: 'JSON: { turnId, clusterId, compactionId }; clusterId is null while the turn is raw or was compacted by flat.',
  async run({ positionals, options, io, openLedger }) {
    const found = await openLedger().findTopic(positionals[0] as string, { sessionId: stringOption(options.session) });
    if (found.clusterId) io.print(`${found.turnId} is in topic ${found.clusterId} (compaction ${found.compactionId})`);
    else if (found.compactionId) io.print(`${found.turnId} is summarized by compaction ${found.compactionId}, not in any topic`);
    else io.print(`${found.turnId} is not summarized by any compaction on this line yet`);
    return found;
  },
};

export const dropTopicCommand: Command = {
  path: ['drop-topic'],
  summary: 'Stop injecting a topic into a session’s contexts (recorded; --undo restores it).',
  arguments: ['<clusterId>'],
  options: {
    ...SESSION_OPTION,
    undo: { type: 'boolean', description: 'restore a dropped topic' },
  },
  details: 'No turn is deleted and the topic stays expandable; a dropped topic takes no new members.',
  async run({ positionals, options, io, openLedger }) {
    const ledger = openLedger();
    const clusterId = positionals[0] as string;
    const sessionId = stringOption(options.session);
    const topic =
      options.undo === true
        ? await ledger.restoreTopic(clusterId, { sessionId })
        : await ledger.dropTopic(clusterId, { sessionId });
    io.print(`topic ${topic.id} ${topic.dropped ? 'dropped' : 'restored'} (${topic.members} turns, ${topic.tokens} tokens)`);
    return topic;
  },
};
