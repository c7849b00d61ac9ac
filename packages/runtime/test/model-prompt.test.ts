// Building one model request on its own, from a real ledger on a SQLite file: the context at the
// session's head within the budget, the request around it, and a budget that holds not even the
// newest message said in the runtime's terms.

import { ContextOverflowError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../src/index.ts';
import { buildPrompt, contextSummary, type PromptSettings } from '../src/model-prompt.ts';
import { newSession, prose, Resources, rejection } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const TOOL: ToolDefinition = { name: 'lookup_port', description: 'Looks up a port.', input_schema: { type: 'object' } };

async function setup() {
  const { ledger } = resources.ledgers();
  const session = await newSession(ledger);
  for (let index = 0; index < 4; index += 1) {
    await ledger.appendTurn(session.id, { role: 'user', content: prose(40, index) });
    await ledger.appendTurn(session.id, { role: 'assistant', content: prose(40, index + 10) });
  }
  const question = await ledger.appendTurn(session.id, { role: 'user', content: 'Which port is the cache on?' });
  const settings: PromptSettings = { ledger, retrieval: false, tools: [TOOL], toolTokens: 37, systemPrompt: 'Be brief.' };
  return { ledger, sessionId: session.id, question, settings };
}

describe('buildPrompt', () => {
  it('builds the context at the head within the budget and the request around it', async () => {
    const { sessionId, question, settings } = await setup();
    const signal = new AbortController().signal;
    const prompt = await buildPrompt(settings, { sessionId, budgetTokens: 150, query: 'cache port', toolChoice: 'none', signal });

    expect(prompt.head).toBe(question.id);
    expect(prompt.session.id).toBe(sessionId);
    expect(prompt.budgetTokens).toBe(150);
    expect(prompt.context.tokens).toBeLessThanOrEqual(150);
    // The budget left older turns out; the question is always last.
    expect(prompt.context.droppedTurnIds.length).toBeGreaterThan(0);
    expect(prompt.request).toEqual({
      system: prompt.context.system,
      messages: prompt.context.messages,
      tools: [TOOL],
      toolChoice: 'none',
      signal,
    });
    expect(prompt.request.system).toContain('Be brief.');
    expect(prompt.request.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Which port is the cache on?' }],
    });
    expect(contextSummary(prompt)).toEqual({
      tokens: prompt.context.tokens,
      budgetTokens: 150,
      compactionTurnId: null,
      retrievedTurnIds: [],
      messages: prompt.context.messages.length,
    });
  });

  it('a budget that holds not even the newest message: ContextOverflowError in the runtime terms, naming the turn', async () => {
    const { sessionId, question, settings } = await setup();
    const error = await rejection(buildPrompt(settings, { sessionId, budgetTokens: 3, query: 'cache', toolChoice: 'auto' }));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('The newest message does not fit the 3 tokens left for the context');
    expect(error.message).toContain('tool definitions 37');
    expect(error.message).toContain(question.id);
  });
});
