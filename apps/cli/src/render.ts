// Text renderings of turns, compactions and contexts for people at a terminal. JSON output never
// goes through here.

import type { BuiltContext } from '@agent-ledger/agents-ledger';
import { contentText, type Turn } from '@agent-ledger/core';

export function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

export function turnLine(turn: Turn, width = 100): string {
  if (turn.turnType === 'compaction') {
    return (
      `${turn.id}  COMPACTION  summarized through ${turn.summarizedThroughTurnId}, raw from ${turn.firstKeptTurnId ?? '(none)'}, ` +
      `${turn.tokensBefore} → ${turn.tokensAfter} tokens (${turn.strategy}, ${turn.trigger})`
    );
  }
  return `${turn.id}  ${turn.role.padEnd(9)}  ${clip(contentText(turn.content), width)}`;
}

export function contextText(context: BuiltContext): string {
  const lines = [
    `── context: ${context.tokens} tokens, ${context.messages.length} messages` +
      (context.compactionTurnId ? `, from compaction ${context.compactionTurnId}` : ', no compaction yet') +
      (context.droppedTurnIds.length > 0
        ? `, older turns left out to fit the budget (oldest kept: ${context.includedTurnIds[0] ?? 'none'})`
        : ''),
    ...(context.topics.length > 0 || context.omittedTopicIds.length > 0
      ? [
          `── topics: ${context.topics.map(topicLabel).join(', ') || 'none'}` +
            (context.omittedTopicIds.length > 0 ? `; left out to fit: ${context.omittedTopicIds.join(', ')}` : ''),
        ]
      : []),
    ...(context.retrievedTurnIds.length > 0 ? [`── retrieved by the query: ${context.retrievedTurnIds.join(', ')}`] : []),
    '── system',
    context.system || '(empty)',
  ];
  for (const message of context.messages) {
    lines.push(`── ${message.role}`, contentText(message.content));
  }
  return lines.join('\n');
}

/** `t_… (similarity 0.42, 3 lines left out)`: what a context says of one topic it shows. */
function topicLabel(topic: BuiltContext['topics'][number]): string {
  const notes = [
    ...(topic.similarity === null ? [] : [`similarity ${topic.similarity.toFixed(2)}`]),
    ...(topic.linesLeftOut > 0 ? [`${topic.linesLeftOut} line${topic.linesLeftOut === 1 ? '' : 's'} left out`] : []),
  ];
  return notes.length > 0 ? `${topic.id} (${notes.join(', ')})` : topic.id;
}
