// Union-find graduation latency: one turn moving from the hot window into a forest that already
// holds N cold turns (TF-IDF vector, nearest centroid, union or singleton, cap merge). No
// summarizer call is part of it: summaries are made lazily, per dirty cluster, at compaction.

import { contentText } from '../../packages/core/src/index.ts';
import { TopicForest } from '../../packages/forest/src/index.ts';
import type { TimedOperation } from './measure.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

export const GRADUATION = 'union-find graduation of one turn';

/** A forest of `coldTurns` graduated synthetic turns, and an operation graduating the next one each call. */
export function graduationOperation(coldTurns: number, seed: number): TimedOperation {
  const conversation = createConversationGenerator(seed);
  const forest = new TopicForest();
  let sequence = 0;
  const graduateNext = () => {
    const turn = conversation.nextTurn();
    sequence += 1;
    const text = typeof turn.content === 'string' ? turn.content : contentText(turn.content);
    return forest.graduate({
      id: `t_${sequence}`,
      text,
      tokens: Math.ceil(text.length / 4),
      timestamp: turn.timestamp ?? sequence,
    });
  };
  for (let index = 0; index < coldTurns; index += 1) graduateNext();
  return { name: GRADUATION, size: coldTurns, run: graduateNext };
}
