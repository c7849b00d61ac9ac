// A topic block's lines as the units a context chooses from: each line's citation and sentences,
// fragments kept with a neighbour, and a line rendered whole or shortened.

import { describe, expect, it } from 'vitest';
import { renderTopicLine, topicLines } from '../src/strategies/union-find/topic-lines.ts';

describe('topicLines', () => {
  it('splits each line into its citation and sentences, and renders it whole exactly as stored', () => {
    const stored = '[t_1] I won my first video game tournament last week!  It was so exciting, I met new people.';
    const [line] = topicLines([stored, '', '   ']);
    expect(line).toEqual({
      text: stored,
      prefix: '[t_1] ',
      sentences: ['I won my first video game tournament last week!', 'It was so exciting, I met new people.'],
    });
    expect(renderTopicLine(line as NonNullable<typeof line>, new Set([0, 1]))).toBe(stored);
    expect(renderTopicLine(line as NonNullable<typeof line>, new Set([1]))).toBe('[t_1] It was so exciting, I met new people. …');
  });

  it('keeps a short fragment with the sentence after it (or before it, at the end), never alone', () => {
    const [greeting, thanks, trailing, plain] = topicLines([
      '[t_2] Hey Nate! I went to the park with my two dogs yesterday.',
      '[t_3] Thanks!',
      '[t_4] We finally finished painting the whole kitchen last weekend. Wow.',
      'A summary line with no citation at all. And a second sentence to go with it.',
    ]);
    expect(greeting?.sentences).toEqual(['Hey Nate! I went to the park with my two dogs yesterday.']);
    expect(thanks?.sentences).toEqual(['Thanks!']);
    expect(trailing?.sentences).toEqual(['We finally finished painting the whole kitchen last weekend. Wow.']);
    expect(plain).toMatchObject({
      prefix: '',
      sentences: ['A summary line with no citation at all.', 'And a second sentence to go with it.'],
    });
  });
});
