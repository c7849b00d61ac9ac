// The adapters share the runtime's rule (runtime-kit): one implausible "prompt is too long" cannot end
// a conversation. Issue 29's probe through the middleware on the real `ai` package: 60 messages, the
// 10th call refused with a bogus count (1e9, 5e6, 1.5e6 or 4e5 tokens > 200,000) by a provider that
// otherwise counts a little more than the ledger estimates and says so in its usage. The report
// contradicts the prompts the model answered, so it is set aside and the call is sent again as it was.

import { estimateTokenCounter } from '@agent-ledger/core';
import { APICallError, type LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { type LedgerMiddlewareNotice, ledgerMiddleware } from '../src/index.ts';
import { lastUserText, lineOf, normalTurns, type TempLedger, tempLedger } from './helpers.ts';

let temp: TempLedger;
afterEach(async () => temp?.close());

const MESSAGES = 60;
const WINDOW = 200_000;

/** What the provider counts for a prompt: a little more than the ledger's estimate. */
function providerCount(call: LanguageModelV3CallOptions): number {
  return Math.ceil(estimateTokenCounter.countText(JSON.stringify(call.prompt)) * 1.1);
}

function tooLong(promptTokens: number): APICallError {
  const message = `prompt is too long: ${promptTokens} tokens > ${WINDOW} maximum`;
  return new APICallError({
    message,
    url: 'https://api.example/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }),
  });
}

describe('the middleware, given a bogus "prompt is too long" at the 10th call of 60', () => {
  for (const misreported of [1e9, 5e6, 1.5e6, 4e5]) {
    it(`of ${misreported} tokens: sets it aside, sends the call again as it was, and every message is answered`, async () => {
      temp = tempLedger();
      const { ledger } = temp;
      const session = await ledger.createSession({ label: 'misreport', settings: { contextWindow: WINDOW } });
      let calls = 0;
      const inner = new MockLanguageModelV3({
        doGenerate: async (call) => {
          calls += 1;
          if (calls === 10) throw tooLong(misreported);
          const counted = providerCount(call);
          return {
            content: [{ type: 'text', text: `Noted: ${lastUserText(call.prompt)}` }],
            finishReason: { unified: 'stop', raw: undefined },
            usage: {
              inputTokens: { total: counted, noCache: counted, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 5, text: 5, reasoning: undefined },
            },
            warnings: [],
          };
        },
      });
      const notices: LedgerMiddlewareNotice[] = [];
      const middleware = ledgerMiddleware({ ledger, sessionId: session.id, onNotice: (notice) => notices.push(notice) });
      const model = wrapLanguageModel({ model: inner, middleware });
      const history: ModelMessage[] = [];
      let answered = 0;
      for (let index = 1; index <= MESSAGES; index += 1) {
        history.push({ role: 'user', content: `Message ${index}: host db-${index} runs build ${9000 + index}.` });
        const result = await generateText({ model, messages: history, maxRetries: 0 });
        if (result.text.startsWith(`Noted: Message ${index}:`)) answered += 1;
        history.push(...result.response.messages);
        await middleware.idle();
      }
      expect(answered).toBeGreaterThanOrEqual(59);
      expect(answered).toBe(MESSAGES);
      expect(inner.doGenerateCalls).toHaveLength(MESSAGES + 1);
      // The refused call went again unchanged: nothing learned, compacted or cut.
      expect(inner.doGenerateCalls[10]?.prompt).toEqual(inner.doGenerateCalls[9]?.prompt);
      expect(notices).toEqual([]);
      expect((await ledger.getSession(session.id)).calibration).toBeNull();
      expect(normalTurns(await lineOf(ledger, session.id))).toHaveLength(2 * MESSAGES);
    });
  }
});
