// A summary API that sends its headers and then nothing (a stalled proxy) is bounded by the
// client's timeout, as the chat model's requests are: the attempt ends, the SDK retries, and the
// summarizer then fails (or defers) with a timeout instead of hanging a compaction forever.

import { SummarizerError } from '@agent-ledger/core';
import { type LoopbackApi, startLoopbackApi } from '@agent-ledger/loopback-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicSummarizer } from '../src/index.ts';
import { contractInputs } from './summarizer-contract.ts';

let api: LoopbackApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('a model API that goes silent after its headers', () => {
  it('ends the summary request after the timeout, retried, then defers with a timeout', async () => {
    api = await startLoopbackApi({ respond: () => ({ kind: 'stall', partialBody: '{"id": ' }) });
    const summarizer = createAnthropicSummarizer({
      apiKey: 'k',
      baseURL: api.url,
      timeoutMs: 300,
      maxRetries: 1,
      onFailure: 'defer',
    });
    const failure = await summarizer.summarize(contractInputs.plain(40)).catch((error: unknown) => error);
    expect(SummarizerError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/timed out/);
    // One attempt and one retry, each ended for its silence.
    expect(api.requests.length).toBe(2);
  });

  it('falls back to the extractive summary after the stalled attempts, recording why', async () => {
    api = await startLoopbackApi({ respond: () => ({ kind: 'stall' }) });
    const summarizer = createAnthropicSummarizer({ apiKey: 'k', baseURL: api.url, timeoutMs: 300, maxRetries: 0 });
    const result = await summarizer.summarize(contractInputs.plain(40));
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.calls?.[0]?.rejected).toMatch(/timed out/);
  });
});
