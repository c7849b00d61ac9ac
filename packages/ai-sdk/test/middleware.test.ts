// The middleware on the real `ai` package (generateText, wrapLanguageModel) with its offline test
// model: an app that keeps the whole conversation and resends it every call, as AI SDK apps do.

import { estimateTokenCounter, isCompaction } from '@agent-ledger/core';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ledgerMiddleware } from '../src/index.ts';
import { generated, lastUserText, lineOf, normalTurns, type TempLedger, tempLedger } from './helpers.ts';

let temp: TempLedger;
afterEach(async () => temp?.close());

const SMALL = { contextWindow: 1500, reserveTokens: 200, keepRecentTokens: 300 };
const FACTS = ['db-3 runs MySQL 5.7.44', 'the cache is redis-quokka-7 on port 6390', 'deploys freeze on Fridays at 16:00'];

/** Text tokens of a prompt the model received (system and every text part): never more than the ledger's own count. */
function textTokens(call: LanguageModelV3CallOptions): number {
  const texts = call.prompt.flatMap((message) =>
    message.role === 'system' ? [message.content] : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
  );
  return estimateTokenCounter.countText(texts.join('\n'));
}

function echoModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: 'echo-1',
    doGenerate: async (call) => generated([{ type: 'text', text: `Noted: ${lastUserText(call.prompt)}` }]),
  });
}

describe('ledgerMiddleware with generateText', () => {
  it('40 exchanges under a small window: each message recorded once, compactions land, the prompt stays bounded', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'forty', settings: SMALL });
    const middleware = ledgerMiddleware({ ledger, sessionId: session.id });
    const inner = echoModel();
    const model = wrapLanguageModel({ model: inner, middleware });
    const history: ModelMessage[] = [];
    for (let exchange = 1; exchange <= 40; exchange += 1) {
      const fact = FACTS[exchange % FACTS.length];
      history.push({ role: 'user', content: `Message ${exchange}: remember that ${fact}, ticket OPS-${1000 + exchange}.` });
      const result = await generateText({ model, system: 'You are the on-call assistant.', messages: history });
      expect(result.text).toBe(`Noted: Message ${exchange}: remember that ${fact}, ticket OPS-${1000 + exchange}.`);
      history.push(...result.response.messages);
    }
    await middleware.idle();

    const line = await lineOf(ledger, session.id);
    const turns = normalTurns(line);
    expect(history).toHaveLength(80);
    expect(turns).toHaveLength(80);
    for (let exchange = 1; exchange <= 40; exchange += 1)
      expect(turns.filter((turn) => JSON.stringify(turn.content).includes(`OPS-${1000 + exchange}.`))).toHaveLength(2);
    expect(line.filter(isCompaction).length).toBeGreaterThan(0);

    // The model never got the whole conversation: every prompt within the window less the reserve,
    // while the history the app keeps grew past it.
    const limit = SMALL.contextWindow - SMALL.reserveTokens;
    expect(inner.doGenerateCalls).toHaveLength(40);
    for (const call of inner.doGenerateCalls) expect(textTokens(call)).toBeLessThanOrEqual(limit);
    expect(estimateTokenCounter.countText(JSON.stringify(history))).toBeGreaterThan(limit * 2);
    const last = inner.doGenerateCalls.at(-1) as LanguageModelV3CallOptions;
    expect(last.prompt.length).toBeLessThan(history.length / 2);
    expect(last.prompt[0]).toMatchObject({ role: 'system' });
    expect(lastUserText(last.prompt)).toContain('Message 40');
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a tool loop: the call and its result are one pair in the ledger, each step records only its new messages', async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'tools' });
    const inner = new MockLanguageModelV3({
      doGenerate: async (call) => {
        const last = call.prompt.at(-1);
        if (last?.role === 'tool') return generated([{ type: 'text', text: 'db-3 runs MySQL 5.7.44.' }]);
        return generated([
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: JSON.stringify({ host: 'db-3' }) },
        ]);
      },
    });
    const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger }) });
    const result = await generateText({
      model,
      messages: [{ role: 'user', content: 'Which MySQL does db-3 run?' }],
      tools: {
        lookup: tool({ inputSchema: z.object({ host: z.string() }), execute: async ({ host }) => `${host}: mysql 5.7.44` }),
      },
      stopWhen: stepCountIs(3),
      providerOptions: { ledger: { sessionId: session.id } },
    });
    expect(result.text).toBe('db-3 runs MySQL 5.7.44.');
    expect(inner.doGenerateCalls).toHaveLength(2);

    const turns = normalTurns(await lineOf(ledger, session.id));
    expect(turns.map((turn) => [turn.role, turn.content.map((block) => block.type).join(',')])).toEqual([
      ['user', 'text'],
      ['assistant', 'text,tool_use'],
      ['user', 'tool_result'],
      ['assistant', 'text'],
    ]);
    expect(turns[1]?.content[1]).toEqual({ type: 'tool_use', id: 'call_1', name: 'lookup', input: { host: 'db-3' } });
    expect(turns[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1', content: 'db-3: mysql 5.7.44' });
    // The second step's prompt came from the ledger, the call and its result together.
    const second = inner.doGenerateCalls[1]?.prompt ?? [];
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(await ledger.doctor()).toEqual([]);
  });

  it("an edited message forks the line where the app's history leaves it, and a new process goes on in the fork", async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'edits' });
    const model = wrapLanguageModel({ model: echoModel(), middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    const history: ModelMessage[] = [{ role: 'user', content: 'First: the cache is redis-quokka-7.' }];
    history.push(...(await generateText({ model, messages: history })).response.messages);
    history.push({ role: 'user', content: 'Second: deploys freeze on Fridays.' });
    await generateText({ model, messages: history });

    // The user edits the second message: the app resends the history with it changed.
    const edited: ModelMessage[] = [
      ...history.slice(0, 2),
      { role: 'user', content: 'Second, edited: deploys freeze on Thursdays.' },
    ];
    const reply = await generateText({ model, messages: edited });
    expect(reply.text).toBe('Noted: Second, edited: deploys freeze on Thursdays.');
    const tree = await ledger.tree(session.id);
    expect(tree.forks).toHaveLength(1);
    const fork = tree.forks[0]?.session.id as string;
    const forkLine = normalTurns(await lineOf(ledger, fork)).map((turn) => JSON.stringify(turn.content));
    expect(forkLine).toHaveLength(4);
    expect(forkLine[2]).toContain('Thursdays');
    // The original line is kept as it was.
    expect(normalTurns(await lineOf(ledger, session.id)).map((turn) => JSON.stringify(turn.content))[2]).toContain('Fridays.');

    // Another process (a new middleware) continues the edited conversation: in the fork, no new fork.
    const later = wrapLanguageModel({ model: echoModel(), middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });
    const next = [...edited, ...reply.response.messages, { role: 'user' as const, content: 'Third: on-call is Priya.' }];
    await generateText({ model: later, messages: next });
    expect((await ledger.tree(session.id)).forks).toHaveLength(1);
    expect(normalTurns(await lineOf(ledger, fork))).toHaveLength(6);
  });

  it("history 'ledger': the app sends only the new message and the model still sees the conversation", async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'ledger-history' });
    const inner = echoModel();
    const model = wrapLanguageModel({
      model: inner,
      middleware: ledgerMiddleware({ ledger, sessionId: session.id, history: 'ledger' }),
    });
    await generateText({ model, messages: [{ role: 'user', content: 'The cache is redis-quokka-7 on port 6390.' }] });
    await generateText({ model, messages: [{ role: 'user', content: 'Which port was the cache on?' }] });
    const seen = JSON.stringify(inner.doGenerateCalls[1]?.prompt);
    expect(seen).toContain('redis-quokka-7 on port 6390');
    expect(normalTurns(await lineOf(ledger, session.id))).toHaveLength(4);
  });

  it("refuses a call without a session, and a history that is not the session's, recording nothing", async () => {
    temp = tempLedger();
    const { ledger } = temp;
    const model = wrapLanguageModel({ model: echoModel(), middleware: ledgerMiddleware({ ledger }) });
    await expect(generateText({ model, prompt: 'hello' })).rejects.toThrow(/needs a session/);
    const session = await ledger.createSession({ label: 'one' });
    const withSession = { providerOptions: { ledger: { sessionId: session.id } } };
    await generateText({ model, prompt: 'The first conversation.', ...withSession });
    const before = normalTurns(await lineOf(ledger, session.id)).length;
    await expect(
      generateText({
        model,
        messages: [
          { role: 'assistant', content: 'Another conversation entirely.' },
          { role: 'user', content: 'Hi.' },
        ],
        ...withSession,
      }),
    ).rejects.toThrow(/does not continue session/);
    expect(normalTurns(await lineOf(ledger, session.id))).toHaveLength(before);
  });
});
