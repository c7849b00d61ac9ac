// A provider that refuses a prompt over its real window (APICallError 400, Anthropic's wording), and
// replies that arrive as a stream, whole or broken off, on the real `ai` package.

import { estimateTokenCounter, isCompaction } from '@agent-ledger/core';
import { APICallError, type LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, type ModelMessage, simulateReadableStream, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { ledgerMiddleware } from '../src/index.ts';
import { generated, lastUserText, lineOf, normalTurns, streamedText, type TempLedger, tempLedger } from './helpers.ts';

let temp: TempLedger;
afterEach(async () => temp?.close());

/** What a provider with this real window counts for a prompt: a little more than the ledger's estimate. */
function providerCount(call: LanguageModelV3CallOptions): number {
  return Math.ceil(estimateTokenCounter.countText(JSON.stringify(call.prompt)) * 1.1);
}

describe('a provider that says the prompt is too long', () => {
  it('is answered by learning its window, one overflow compaction and one retry; later calls fit', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const WINDOW = 1200;
    // The session believes in a large window; the provider's is 1,200 tokens.
    const session = await ledger.createSession({ label: 'overflow' });
    let refusals = 0;
    const inner = new MockLanguageModelV3({
      doGenerate: async (call) => {
        const counted = providerCount(call);
        if (counted > WINDOW) {
          refusals += 1;
          throw new APICallError({
            message: `prompt is too long: ${counted} tokens > ${WINDOW} maximum`,
            url: 'https://api.example/v1/messages',
            requestBodyValues: {},
            statusCode: 400,
            responseBody: JSON.stringify({
              type: 'error',
              error: { type: 'invalid_request_error', message: `prompt is too long: ${counted} tokens > ${WINDOW} maximum` },
            }),
          });
        }
        return generated([{ type: 'text', text: `Noted: ${lastUserText(call.prompt)}` }]);
      },
    });
    const notices: string[] = [];
    const middleware = ledgerMiddleware({ ledger, sessionId: session.id, onNotice: (notice) => notices.push(notice.type) });
    const model = wrapLanguageModel({ model: inner, middleware });
    const history: ModelMessage[] = [];
    for (let exchange = 1; exchange <= 30; exchange += 1) {
      history.push({
        role: 'user',
        content: `Step ${exchange}: host db-${exchange} runs build ${9000 + exchange} in rack R${exchange % 7}.`,
      });
      const result = await generateText({ model, messages: history, maxRetries: 0 });
      expect(result.text).toContain(`Step ${exchange}:`);
      history.push(...result.response.messages);
      await middleware.idle();
    }
    // One refusal taught the window; after it every prompt fit.
    expect(refusals).toBe(1);
    expect(notices).toContain('window-learned');
    const line = await lineOf(ledger, session.id);
    expect(line.filter((turn) => isCompaction(turn) && turn.trigger === 'overflow')).toHaveLength(1);
    expect(normalTurns(line)).toHaveLength(60);
    expect((await ledger.getSession(session.id)).calibration).not.toBeNull();
    for (const call of inner.doGenerateCalls.slice(-10)) expect(providerCount(call)).toBeLessThanOrEqual(WINDOW);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('passes every other failure through untouched, recording no reply', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'failure' });
    const inner = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: 'Invalid API key',
          url: 'https://api.example',
          requestBodyValues: {},
          statusCode: 401,
        });
      },
    });
    const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    await expect(generateText({ model, prompt: 'Hello there.', maxRetries: 0 })).rejects.toThrow('Invalid API key');
    // The user's message is kept; no reply was made up.
    expect(normalTurns(await lineOf(ledger, session.id)).map((turn) => turn.role)).toEqual(['user']);
  });
});

describe('streamed replies', () => {
  it('records a finished stream once, as one reply', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'stream' });
    const inner = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: streamedText(['The cache ', 'is redis-quokka-7 ', 'on port 6390.']) }),
      }),
    });
    const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    const result = streamText({ model, prompt: 'Where is the cache?' });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe('The cache is redis-quokka-7 on port 6390.');
    const turns = normalTurns(await lineOf(ledger, session.id));
    expect(turns.map((turn) => [turn.role, JSON.stringify(turn.content)])).toEqual([
      ['user', JSON.stringify([{ type: 'text', text: 'Where is the cache?' }])],
      ['assistant', JSON.stringify([{ type: 'text', text: 'The cache is redis-quokka-7 on port 6390.' }])],
    ]);
    expect(turns[1]?.metadata).toMatchObject({ stopReason: 'stop', aiSdk: { index: 1 } });
  });

  it('a stream that breaks off records what arrived, marked incomplete, and loses nothing stored before', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'broken' });
    const inner = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: streamedText(['Deploys ', 'freeze on ', 'Fridays.'], 2) }),
      }),
    });
    const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'When do deploys freeze?', onError: ({ error }) => void errors.push(error) });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe('Deploys freeze on ');
    expect(errors).toHaveLength(1);
    const turns = normalTurns(await lineOf(ledger, session.id));
    expect(turns).toHaveLength(2);
    expect(turns[1]?.content).toEqual([{ type: 'text', text: 'Deploys freeze on ' }]);
    expect(turns[1]?.metadata).toMatchObject({ incomplete: true, failure: 'connection reset by peer' });
  });

  it('a stream the provider refuses as too long is retried once after an overflow compaction', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'stream-overflow', settings: { contextWindow: 200_000 } });
    // An earlier conversation the provider's real window cannot hold.
    for (let index = 0; index < 40; index += 1)
      await ledger.appendTurns(session.id, [
        {
          role: 'user',
          content: `Earlier ${index}: the runner pool r${index} has ${index + 8} cores and tag build-${index}.`,
          metadata: { aiSdk: { index: index * 2 } },
        },
        { role: 'assistant', content: `Noted runner pool r${index}.`, metadata: { aiSdk: { index: index * 2 + 1 } } },
      ]);
    let attempts = 0;
    const inner = new MockLanguageModelV3({
      doStream: async (call) => {
        attempts += 1;
        const counted = providerCount(call);
        if (counted > 900)
          throw new APICallError({
            message: `prompt is too long: ${counted} tokens > 900 maximum`,
            url: 'u',
            requestBodyValues: {},
            statusCode: 400,
          });
        return { stream: simulateReadableStream({ chunks: streamedText(['r39 has 47 cores.']) }) };
      },
    });
    const model = wrapLanguageModel({
      model: inner,
      middleware: ledgerMiddleware({ ledger, sessionId: session.id, history: 'ledger' }),
    });
    const result = streamText({ model, prompt: 'How many cores has r39?', maxRetries: 0 });
    expect(await result.text).toBe('r39 has 47 cores.');
    expect(attempts).toBe(2);
    const line = await lineOf(ledger, session.id);
    expect(line.filter((turn) => isCompaction(turn) && turn.trigger === 'overflow')).toHaveLength(1);
    expect(normalTurns(line).at(-1)?.content).toEqual([{ type: 'text', text: 'r39 has 47 cores.' }]);
  });
});

describe('a provider that refuses even the retry', () => {
  it('fails with ContextOverflowError after one retry, every message kept', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'hopeless' });
    const inner = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: 'prompt is too long: 90 tokens > 10 maximum',
          url: 'u',
          requestBodyValues: {},
          statusCode: 400,
        });
      },
    });
    const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    await expect(generateText({ model, prompt: 'A question the model cannot take.', maxRetries: 0 })).rejects.toMatchObject({
      code: 'CONTEXT_OVERFLOW',
    });
    expect(inner.doGenerateCalls.length).toBeLessThanOrEqual(2);
    expect(normalTurns(await lineOf(ledger, session.id)).map((turn) => turn.role)).toEqual(['user']);
  });
});
