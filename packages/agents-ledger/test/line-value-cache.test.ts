// The cache of topic sentences' and lines' values: computed once per compaction, topic and unit,
// least recently used evicted past its capacity.

import { describe, expect, it } from 'vitest';
import { LineValueCache } from '../src/strategies/union-find/line-value-cache.ts';

describe('LineValueCache', () => {
  it('computes a topic block once per compaction, topic and unit, and evicts the least recently used', () => {
    const cache = new LineValueCache(2);
    const computed: string[] = [];
    const values = (key: string) => () => {
      computed.push(key);
      return [key.length];
    };
    const sentences = (compactionId: string, topicId: string) => ({ compactionId, topicId, unit: 'sentence' as const });
    expect(cache.valuesOf(sentences('c1', 't1'), values('c1/t1'))).toEqual([5]);
    expect(cache.valuesOf(sentences('c1', 't1'), values('c1/t1 again'))).toEqual([5]);
    cache.valuesOf(sentences('c1', 't2'), values('c1/t2'));
    // The same topic under another compaction is another block.
    cache.valuesOf(sentences('c2', 't1'), values('c2/t1'));
    expect(computed).toEqual(['c1/t1', 'c1/t2', 'c2/t1']);
    // Capacity 2: c1/t1 was the least recently used and went; c1/t2 and c2/t1 stay.
    cache.valuesOf(sentences('c1', 't2'), values('c1/t2 again'));
    cache.valuesOf(sentences('c1', 't1'), values('c1/t1 recomputed'));
    expect(computed).toEqual(['c1/t1', 'c1/t2', 'c2/t1', 'c1/t1 recomputed']);
    // A block's lines are valued apart from its sentences (a topic near a query shows whole lines).
    expect(cache.valuesOf({ compactionId: 'c1', topicId: 't1', unit: 'line' }, values('c1/t1 lines'))).toEqual([11]);
    expect(computed.at(-1)).toBe('c1/t1 lines');
  });
});
