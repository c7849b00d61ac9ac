// Each provider's own words for a prompt over the window, as they answer it, and errors that are not
// about the window (which must not start a compaction).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { overflowFromMessage } from '../src/index.ts';

describe('overflowFromMessage', () => {
  it('reads the count and the limit of each provider that gives them', () => {
    expect(
      overflowFromMessage(
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 202609 tokens > 200000 maximum"}}',
      ),
    ).toEqual({
      promptTokens: 202_609,
      limitTokens: 200_000,
    });
    expect(
      overflowFromMessage(
        "This model's maximum context length is 131072 tokens. However, your messages resulted in 140321 tokens. Please reduce the length of the messages.",
      ),
    ).toEqual({ promptTokens: 140_321, limitTokens: 131_072 });
    expect(overflowFromMessage("This model's maximum context length is 8192 tokens, however you requested 9000 tokens")).toEqual({
      promptTokens: 9000,
      limitTokens: 8192,
    });
  });

  it('recognises an overflow without figures', () => {
    expect(overflowFromMessage('Prompt too long')).toEqual({ promptTokens: null, limitTokens: null });
    expect(overflowFromMessage('Error code: context_length_exceeded')).toEqual({ promptTokens: null, limitTokens: null });
    expect(overflowFromMessage('The input exceeds the context window of this model')).toEqual({
      promptTokens: null,
      limitTokens: null,
    });
  });

  it('says null for every other failure', () => {
    for (const message of ['rate limit exceeded', 'overloaded_error', 'Invalid API key', 'max_tokens: must be at most 8192'])
      expect(overflowFromMessage(message), message).toBeNull();
    // Any Anthropic count over any limit reads back as given.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (prompt, limit) => {
        expect(overflowFromMessage(`prompt is too long: ${prompt} tokens > ${limit} maximum`)).toEqual({
          promptTokens: prompt,
          limitTokens: limit,
        });
      }),
    );
  });
});
