// The cache of topic lines' values: computed once per compaction and topic, least recently used
// evicted past its capacity.

import { describe, expect, it } from 'vitest';
import { LineValueCache } from '../src/strategies/union-find/line-value-cache.ts';

describe('LineValueCache', () => {
  it('computes a topic block once per compaction and topic, and evicts the least recently used', () => {
    const cache = new LineValueCache(2);
    const computed: string[] = [];
    const values = (key: string) => () => {
      computed.push(key);
      return [key.length];
    };
    expect(cache.valuesOf('c1', 't1', values('c1/t1'))).toEqual([5]);
    expect(cache.valuesOf('c1', 't1', values('c1/t1 again'))).toEqual([5]);
    cache.valuesOf('c1', 't2', values('c1/t2'));
    // The same topic under another compaction is another block.
    cache.valuesOf('c2', 't1', values('c2/t1'));
    expect(computed).toEqual(['c1/t1', 'c1/t2', 'c2/t1']);
    // Capacity 2: c1/t1 was the least recently used and went; c1/t2 and c2/t1 stay.
    cache.valuesOf('c1', 't2', values('c1/t2 again'));
    cache.valuesOf('c1', 't1', values('c1/t1 recomputed'));
    expect(computed).toEqual(['c1/t1', 'c1/t2', 'c2/t1', 'c1/t1 recomputed']);
  });
});
