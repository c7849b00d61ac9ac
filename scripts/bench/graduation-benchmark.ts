// Union-find graduation latency: one turn moving from the hot window into a forest that already
// holds N cold turns (TF-IDF vector, nearest centroid, union or singleton, cap merge). No
// summarizer call is part of it: summaries are made lazily, per dirty cluster, at compaction.

import { contentText } from '../../packages/core/src/index.ts';
import { TopicForest } from '../../packages/forest/src/index.ts';
import type { TimedOperation } from './measure.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

export const GRADUATION = 'union-find graduation of one turn';

/** Turns generated ahead, outside the timed calls: the timing is of graduation, not of making up text. */
const PREPARED_TURNS = 2_000;

/** A forest of `coldTurns` graduated synthetic turns, and an operation graduating the next one each call. */
export function graduationOperation(coldTurns: number, seed: number): TimedOperation {
  const conversation = createConversationGenerator(seed);
  const forest = new TopicForest();
  let sequence = 0;
  const prepare = () => {
    const turn = conversation.nextTurn();
    sequence += 1;
    const text = typeof turn.content === 'string' ? turn.content : contentText(turn.content);
    return { id: `t_${sequence}`, text, tokens: Math.ceil(text.length / 4), timestamp: turn.timestamp ?? sequence };
  };
  for (let index = 0; index < coldTurns; index += 1) forest.graduate(prepare());
  let prepared = Array.from({ length: PREPARED_TURNS }, prepare);
  let next = 0;
  const graduateNext = () => {
    if (next === prepared.length) {
      prepared = Array.from({ length: PREPARED_TURNS }, prepare);
      next = 0;
    }
    const turn = prepared[next] as (typeof prepared)[number];
    next += 1;
    return forest.graduate(turn);
  };
  return { name: GRADUATION, size: coldTurns, run: graduateNext };
}
