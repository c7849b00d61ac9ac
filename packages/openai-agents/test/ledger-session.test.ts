// LedgerSession under the real Agents SDK runner (@openai/agents-core's run, Agent, tool) with an
// offline model: what the runner stores and reads, turn after turn.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { estimateTokenCounter, isCompaction, type NormalTurn, type Turn } from '@agent-ledger/core';
import { Agent, type AgentInputItem, run, setTracingDisabled, tool } from '@openai/agents-core';
import { OpenAIResponsesCompactionSession } from '@openai/agents-openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LedgerSession } from '../src/index.ts';
import { ScriptedModel } from './scripted-model.ts';

beforeAll(() => setTracingDisabled(true));

let dir = '';
let ledger: AgentsLedger;
function openLedger(): AgentsLedger {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openai-agents-'));
  ledger = openAgentsLedger(path.join(dir, 'ledger.db'));
  return ledger;
}
afterEach(async () => {
  await ledger?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function lineOf(sessionId: string): Promise<Turn[]> {
  const { headTurnId } = await ledger.getSession(sessionId);
  const turns: Turn[] = [];
  if (headTurnId) for await (const turn of ledger.getFullHistory(headTurnId)) turns.push(turn);
  return turns;
}
const normal = (turns: Turn[]) => turns.filter((turn): turn is NormalTurn => turn.turnType === 'normal');
const SMALL = { contextWindow: 1500, reserveTokens: 200, keepRecentTokens: 300 };

function textTokens(input: string | AgentInputItem[]): number {
  if (typeof input === 'string') return estimateTokenCounter.countText(input);
  const texts = input.flatMap((item) => {
    if (!('role' in item)) return [];
    if (typeof item.content === 'string') return [item.content];
    return item.content.flatMap((part) => ('text' in part && typeof part.text === 'string' ? [part.text] : []));
  });
  return estimateTokenCounter.countText(texts.join('\n'));
}

describe('LedgerSession with the Agents SDK runner', () => {
  it('40 runs under a small window: every item kept once, compactions land, the model gets a bounded history', async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger, session: { label: 'agents', settings: SMALL } });
    const model = new ScriptedModel();
    const agent = new Agent({ name: 'ops', instructions: 'You are the on-call assistant.', model });
    for (let index = 1; index <= 40; index += 1) {
      const result = await run(agent, `Run ${index}: host db-${index} runs build ${7000 + index} in rack R${index % 5}.`, {
        session,
      });
      expect(result.finalOutput).toBe(`Noted: Run ${index}: host db-${index} runs build ${7000 + index} in rack R${index % 5}.`);
      await session.idle();
    }
    const id = await session.getSessionId();
    const line = await lineOf(id);
    expect(normal(line)).toHaveLength(80);
    expect(line.filter(isCompaction).length).toBeGreaterThan(0);
    // The words the model got (system, user and assistant text) never exceed the window less the reserve.
    for (const request of model.requests)
      expect(textTokens(request.input)).toBeLessThanOrEqual(SMALL.contextWindow - SMALL.reserveTokens);
    const everything = normal(line)
      .map((turn) => JSON.stringify(turn.content))
      .join('\n');
    expect(estimateTokenCounter.countText(everything)).toBeGreaterThan(SMALL.contextWindow * 1.5);
    const last = model.requests.at(-1)?.input as unknown[];
    expect(last.length).toBeLessThan(40);
    expect(last[0]).toMatchObject({ role: 'system' });
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a tool run: the call and its result are kept as a pair and come back paired', async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger });
    const model = new ScriptedModel();
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a host up.',
      parameters: z.object({ host: z.string() }),
      execute: async ({ host }) => `${host} runs MySQL 5.7.44`,
    });
    const agent = new Agent({ name: 'ops', model, tools: [lookup] });
    const result = await run(agent, 'Please look up db-3.', { session });
    expect(result.finalOutput).toBe('The lookup says: db-3 runs MySQL 5.7.44');
    const turns = normal(await lineOf(await session.getSessionId()));
    expect(turns.map((turn) => [turn.role, turn.content.map((block) => block.type).join(',')])).toEqual([
      ['user', 'text'],
      ['assistant', 'tool_use'],
      ['user', 'tool_result'],
      ['assistant', 'text'],
    ]);
    const items = await session.getItems();
    expect(
      items.map((item) => ('type' in item && item.type !== 'message' ? item.type : (item as { role: string }).role)),
    ).toEqual(['user', 'function_call', 'function_call_result', 'assistant']);
    expect(await session.getItems(2)).toEqual(items.slice(-2));
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a streamed run is kept as a finished one', async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger });
    const agent = new Agent({ name: 'ops', model: new ScriptedModel() });
    const streamed = await run(agent, 'The cache is redis-quokka-7 on port 6390.', { session, stream: true });
    let text = '';
    for await (const piece of streamed.toTextStream()) text += piece;
    await streamed.completed;
    expect(text).toBe('Noted: The cache is redis-quokka-7 on port 6390.');
    const turns = normal(await lineOf(await session.getSessionId()));
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(turns[1]?.content)).toContain('Noted: The cache is redis-quokka-7');
  });

  it('popItem and clearSession keep their meaning and delete nothing', async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger, session: { label: 'pop' } });
    const first = await session.getSessionId();
    await session.addItems([
      { role: 'user', content: 'Deploys freeze on Fridays.' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] },
    ]);
    const popped = await session.popItem();
    expect(popped).toEqual({ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] });
    expect(await session.getItems()).toEqual([{ role: 'user', content: 'Deploys freeze on Fridays.' }]);
    const forked = await session.getSessionId();
    expect(forked).not.toBe(first);
    expect(normal(await lineOf(first))).toHaveLength(2);

    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.getSessionId()).not.toBe(forked);
    expect((await ledger.search('Fridays')).hits.length).toBeGreaterThan(0);
    expect(await new LedgerSession({ ledger, sessionId: await session.getSessionId() }).popItem()).toBeUndefined();
  });

  it('recallFor: the next run also gets what the ledger recalls for its message, and only the run is stored', async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger, session: { settings: SMALL } });
    const model = new ScriptedModel();
    const agent = new Agent({ name: 'ops', model });
    await run(agent, 'For the record: the staging cache is redis-quokka-7 on port 6390.', { session });
    for (let index = 1; index <= 30; index += 1)
      await run(
        agent,
        `Filler ${index}: the lint rules, the CI pipelines, the flaky browser tests and the nightly dependency bumps all need a look this week.`,
        { session },
      );
    await session.idle();
    const question = 'Which port is the staging cache on?';
    // Without it the history is the summary and the recent turns; with it, the recalled turns too.
    expect(JSON.stringify(await session.getItems())).not.toMatch(/(Recalled|Retrieved) from earlier/);
    await run(agent, question, { session: session.recallFor(question) });
    const sent = JSON.stringify(model.requests.at(-1)?.input);
    expect(sent).toMatch(/(Recalled|Retrieved) from earlier/);
    expect(sent).toContain('redis-quokka-7 on port 6390');
    expect(JSON.stringify(await session.getItems())).not.toMatch(/(Recalled|Retrieved) from earlier/);
    // What was stored is the run (the question and the reply), not the recalled history.
    const turns = normal(await lineOf(await session.getSessionId()));
    expect(turns).toHaveLength(64);
    expect(turns.at(-2)?.content).toEqual([{ type: 'text', text: question }]);
    expect(JSON.stringify(turns.slice(-2))).not.toMatch(/(Recalled|Retrieved) from/);
  });

  it("records an OpenAI compaction (replaceHistoryWithCompaction) as a compaction turn, and later contexts start from the provider's items", async () => {
    openLedger();
    const session = await LedgerSession.create({ ledger });
    await session.addItems([
      { role: 'user', content: 'The cache is redis-quokka-7.' },
      { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] },
    ]);
    const compacted = [
      { role: 'user' as const, content: 'The cache is redis-quokka-7.' },
      { type: 'compaction' as const, encrypted_content: 'gAAAA-opaque' },
    ];
    await session.replaceHistoryWithCompaction(compacted);
    await session.addItems([{ role: 'user', content: 'And the queue?' }]);
    const items = await session.getItems();
    expect(items.slice(0, 2)).toEqual(compacted);
    expect(items.at(-1)).toEqual({ role: 'user', content: 'And the queue?' });
    const line = await lineOf(await session.getSessionId());
    expect(line.filter(isCompaction)).toHaveLength(1);
    expect(normal(line)).toHaveLength(3);
  });
});

/** What OpenAI's SDK throws for a prompt over the window: an APIError with status 400. */
class ContextLengthError extends Error {
  readonly status = 400;
  readonly code = 'context_length_exceeded';
}

describe('a provider that says the prompt is too long', () => {
  it('withOverflowRecovery learns the window, compacts once and runs again; nothing is recorded twice', async () => {
    openLedger();
    const WINDOW = 1200;
    const session = await LedgerSession.create({ ledger, session: { label: 'overflow' } });
    let refusals = 0;
    const model = new ScriptedModel();
    const answer = model.getResponse.bind(model);
    model.getResponse = async (request) => {
      const counted = Math.ceil(estimateTokenCounter.countText(JSON.stringify(request.input)) * 1.1);
      if (counted > WINDOW) {
        refusals += 1;
        throw new ContextLengthError(
          `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${counted} tokens.`,
        );
      }
      return answer(request);
    };
    const notices: string[] = [];
    const watched = new LedgerSession({
      ledger,
      sessionId: await session.getSessionId(),
      onNotice: (notice) => notices.push(notice.type),
    });
    const agent = new Agent({ name: 'ops', model });
    for (let index = 1; index <= 30; index += 1) {
      const input = `Step ${index}: host db-${index} runs build ${9000 + index} in rack R${index % 7}.`;
      const result = await watched.withOverflowRecovery(() => run(agent, input, { session: watched }));
      expect(result.finalOutput).toBe(`Noted: ${input}`);
      await watched.idle();
    }
    expect(refusals).toBe(1);
    expect(notices).toContain('window-learned');
    const line = await lineOf(await watched.getSessionId());
    expect(line.filter((turn) => isCompaction(turn) && turn.trigger === 'overflow')).toHaveLength(1);
    expect(normal(line)).toHaveLength(60);
    // Any other failure is the caller's, untouched.
    await expect(watched.withOverflowRecovery(async () => Promise.reject(new Error('rate limited')))).rejects.toThrow(
      'rate limited',
    );
  });
});

describe("the SDK's compaction decorator (OpenAIResponsesCompactionSession) over a LedgerSession", () => {
  it('runs: the compacted history goes on in a new session, the old one keeps every turn', async () => {
    openLedger();
    const underlying = await LedgerSession.create({ ledger, session: { label: 'decorated' } });
    const first = await underlying.getSessionId();
    // A client answering responses.compact offline, as the API does: the kept user message and an opaque compaction item.
    const compactRequests: unknown[] = [];
    const client = {
      responses: {
        compact: async (request: unknown) => {
          compactRequests.push(request);
          return {
            output: [
              { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run 1: the cache is redis-quokka-7.' }] },
              { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA-opaque' },
            ],
            usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120 },
          };
        },
      },
    };
    const session = new OpenAIResponsesCompactionSession({
      client: client as never,
      underlyingSession: underlying,
      model: 'gpt-4.1',
    });
    const agent = new Agent({ name: 'ops', model: new ScriptedModel() });
    await run(agent, 'Run 1: the cache is redis-quokka-7.', { session });
    await run(agent, 'Run 2: the queue is rabbit-2.', { session });
    await session.runCompaction({ force: true, compactionMode: 'input' });
    expect(compactRequests).toHaveLength(1);
    const items = await session.getItems();
    expect(items.map((item) => ('type' in item ? item.type : 'message'))).toEqual(['message', 'compaction']);
    expect(await underlying.getSessionId()).not.toBe(first);
    expect(normal(await lineOf(first))).toHaveLength(4);
    // The conversation goes on from the compacted history.
    await run(agent, 'Run 3: and the search index?', { session });
    expect(normal(await lineOf(await underlying.getSessionId())).length).toBeGreaterThanOrEqual(3);
  });
});
