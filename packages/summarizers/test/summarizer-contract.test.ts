// Runs the Summarizer contract against each summarizer the package ships: the offline extractive
// one, and the Anthropic one on the real @anthropic-ai/sdk against the loopback Messages API, once
// per outcome a compaction can meet (the model's summary is used; the model refuses or the API is
// down and the extractive fallback writes it). Each also runs with a counter that counts words, so
// "fits targetTokens" is checked in the summarizer's counter, not in the estimate by coincidence.

import type { TokenCounter } from '@agent-ledger/core';
import { type LoopbackApi, startLoopbackApi } from '@agent-ledger/loopback-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnthropicSummarizerOptions, createAnthropicSummarizer, createExtractiveSummarizer } from '../src/index.ts';
import { NOTE_TAKING_MODEL, REFUSING_MODEL, scriptedModels, UNAVAILABLE_MODEL } from './loopback-models.ts';
import { contractInputs, summarizerContract } from './summarizer-contract.ts';

const wordCounter: TokenCounter = { name: 'words', countText: (text) => text.split(/\s+/).filter(Boolean).length };

/** A counter that breaks on first use: the extractive summarizer's only way to fail on valid input. */
const brokenCounter: TokenCounter = {
  name: 'broken',
  countText: () => {
    throw new Error('the token counter is broken');
  },
};

summarizerContract('extractive', {
  create: () => createExtractiveSummarizer(),
  createFailing: () => createExtractiveSummarizer({ tokenCounter: brokenCounter }),
  citesEveryLine: true,
});

summarizerContract('extractive, counting words', {
  create: () => createExtractiveSummarizer({ tokenCounter: wordCounter }),
  createFailing: () => createExtractiveSummarizer({ tokenCounter: brokenCounter }),
  tokenCounter: wordCounter,
  citesEveryLine: true,
});

describe('the Anthropic summarizer on the loopback Messages API', () => {
  let api: LoopbackApi | undefined;
  beforeAll(async () => {
    api = await startLoopbackApi({ respond: scriptedModels });
  });
  afterAll(async () => {
    await api?.close();
  });

  function anthropic(model: string, options: AnthropicSummarizerOptions = {}) {
    if (!api) throw new Error('the loopback API has not started');
    // No retries: the scripted replies are the same on every attempt, so a retry would only wait.
    return createAnthropicSummarizer({
      apiKey: 'test-key',
      baseURL: api.url,
      timeoutMs: 10_000,
      maxRetries: 0,
      model,
      ...options,
    });
  }
  const deferring =
    (options: AnthropicSummarizerOptions = {}) =>
    () =>
      anthropic(UNAVAILABLE_MODEL, { ...options, onFailure: 'defer' });

  summarizerContract("anthropic, the model's summary used", {
    create: () => anthropic(NOTE_TAKING_MODEL),
    createFailing: deferring(),
  });
  summarizerContract("anthropic, the model's summary used, counting words", {
    create: () => anthropic(NOTE_TAKING_MODEL, { tokenCounter: wordCounter }),
    createFailing: deferring({ tokenCounter: wordCounter }),
    tokenCounter: wordCounter,
  });
  summarizerContract('anthropic, the model refuses and the extractive fallback writes', {
    create: () => anthropic(REFUSING_MODEL),
    createFailing: deferring(),
  });
  summarizerContract('anthropic, the API is down and the extractive fallback writes', {
    create: () => anthropic(UNAVAILABLE_MODEL),
    createFailing: deferring(),
  });

  // Without this the runs above could all be fallback runs and the model path would go unchecked.
  it('takes the path each run is named for, on the contract inputs', async () => {
    for (const input of [contractInputs.plain(40), contractInputs.folding(120), contractInputs.folding(2_000)]) {
      const used = await anthropic(NOTE_TAKING_MODEL).summarize(input);
      expect(used.writtenBy).toBe(`anthropic/${NOTE_TAKING_MODEL}`);
      expect(used.text).not.toBe('');
      const refused = await anthropic(REFUSING_MODEL).summarize(input);
      expect([refused.writtenBy, refused.calls?.[0]?.rejected]).toEqual(['extractive', 'refusal']);
      const down = await anthropic(UNAVAILABLE_MODEL).summarize(input);
      expect([down.writtenBy, down.calls?.[0]?.rejected]).toEqual([
        'extractive',
        'api-error: HTTP 500 api_error: Internal server error',
      ]);
    }
  });
});
