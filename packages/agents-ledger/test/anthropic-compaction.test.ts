// Compaction on a real ledger with the Anthropic summarizer on the real SDK, against the loopback
// Messages API: what the compaction turn records when the model writes the summary, when the API
// fails and the extractive fallback writes it, and when the compaction is deferred (nothing written).

import { type CompactionTurn, SummarizerError } from '@agent-ledger/core';
import { type LoopbackApi, type LoopbackReply, lastUserText, type Responder, startLoopbackApi } from '@agent-ledger/loopback-api';
import { type AnthropicSummarizerOptions, createAnthropicSummarizer } from '@agent-ledger/summarizers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendConversation,
  countRows,
  newSession,
  openTempLedger,
  SMALL_SETTINGS,
  sessionHistory,
  type TempLedger,
} from './builders.ts';
import { appendTopics, metadataOf, roundRobinPlan, topicMembers } from './topic-builders.ts';

const MODEL = 'claude-compaction-test';

const SUMMARY = [
  'The schema keeps a depth column on turns and an index on session and depth [t_000002].',
  'Deploys wait for review; the retry budget stays at three [t_000005].',
].join('\n');

const SERVER_ERROR: LoopbackReply = {
  kind: 'error',
  status: 500,
  errorType: 'api_error',
  message: 'Internal server error',
  headers: { 'retry-after': '0' },
};

const temps: TempLedger[] = [];
let api: LoopbackApi | undefined;
afterEach(async () => {
  for (const temp of temps.splice(0)) temp.cleanup();
  await api?.close();
  api = undefined;
});

async function loopback(respond?: Responder): Promise<LoopbackApi> {
  api = await startLoopbackApi(respond ? { respond } : {});
  return api;
}

/** A temp ledger (sequential ids, a fixed clock) whose summarizer is the Anthropic one on the loopback server. */
function anthropicLedger(server: LoopbackApi, options: AnthropicSummarizerOptions = {}) {
  const summarizer = createAnthropicSummarizer({
    apiKey: 'test-key',
    baseURL: server.url,
    timeoutMs: 10_000,
    maxRetries: 0,
    model: MODEL,
    ...options,
  });
  const temp = openTempLedger({ summarizer });
  temps.push(temp);
  return temp.ledger;
}

/** The same conversation in a ledger with the default (extractive) summarizer. */
function extractiveLedger() {
  const temp = openTempLedger();
  temps.push(temp);
  return temp.ledger;
}

/** The API usage of every request, summed as a compaction records it. */
function apiUsage(server: LoopbackApi, outputs: readonly string[]) {
  return {
    inputTokens: server.requests.reduce((total, request) => total + request.inputTokens, 0),
    outputTokens: outputs.reduce((total, text) => total + Math.ceil(text.length / 4), 0),
  };
}

describe('a flat compaction summarized by the Anthropic model', () => {
  it("writes the model's summary, records anthropic/<model>, the API usage and the call", async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    const ledger = anthropicLedger(server);
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);

    const compaction = await ledger.compact(session.id);
    expect(server.requests).toHaveLength(1);
    const usage = apiUsage(server, [SUMMARY]);
    expect(compaction).toMatchObject({ summary: SUMMARY, summarizer: `anthropic/${MODEL}`, strategy: 'flat', usage });
    expect(metadataOf(compaction).calls).toEqual([{ summarizer: 'anthropic', model: MODEL, ...usage }]);
    expect(metadataOf(compaction).summarizerCalls).toBe(1);

    // As stored, not only as returned.
    const stored = (await ledger.getTurn(compaction.id)) as CompactionTurn;
    expect(stored).toMatchObject({ summary: SUMMARY, summarizer: `anthropic/${MODEL}`, usage });
    expect(metadataOf(stored).calls).toEqual(metadataOf(compaction).calls);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('sends the turns it summarizes, with their ids, and the instructions compact() was given', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    const ledger = anthropicLedger(server);
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 30, 40);

    const compaction = await ledger.compact(session.id, { instructions: 'keep the schema decisions' });
    const request = server.requests[0];
    expect(request?.body.model).toBe(MODEL);
    const prompt = request ? lastUserText(request.body) : '';
    expect(prompt).toContain('<instructions>\nkeep the schema decisions\n</instructions>');
    const through = ids.indexOf(compaction.summarizedThroughTurnId);
    for (const id of ids.slice(0, through + 1)) expect(prompt).toContain(`[${id} · `);
    for (const id of ids.slice(through + 1)) expect(prompt).not.toContain(`[${id} · `);
  });

  it('folds the previous compaction summary into the next request', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY }, { kind: 'text', text: SUMMARY });
    const ledger = anthropicLedger(server);
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    await ledger.compact(session.id);
    await appendConversation(ledger, session.id, 20, 40, 100);
    const second = await ledger.compact(session.id);

    const prompt = server.requests[1] ? lastUserText(server.requests[1].body) : '';
    expect(prompt).toContain(`<previous_summary>\n${SUMMARY}\n</previous_summary>`);
    expect(second.summarizer).toBe(`anthropic/${MODEL}`);
  });
});

describe('a flat compaction when the API fails', () => {
  it('is written by the extractive fallback, with the rejected call recorded', async () => {
    const server = await loopback(() => SERVER_ERROR);
    const ledger = anthropicLedger(server);
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    const compaction = await ledger.compact(session.id);

    // The same conversation compacted by the extractive summarizer alone gives the same summary.
    const reference = extractiveLedger();
    const referenceSession = await newSession(reference);
    await appendConversation(reference, referenceSession.id, 30, 40);
    const expected = await reference.compact(referenceSession.id);

    expect(server.requests).toHaveLength(1);
    expect(compaction.summary).toBe(expected.summary);
    expect(compaction.summarizer).toBe('extractive');
    expect(compaction.usage).toEqual(expected.usage);
    const calls = metadataOf(compaction).calls as Array<Record<string, unknown>>;
    expect(calls).toEqual([
      { summarizer: 'anthropic', model: MODEL, inputTokens: 0, outputTokens: 0, rejected: expect.any(String) },
      { summarizer: 'extractive', ...expected.usage },
    ]);
    expect(calls[0]?.rejected).toMatch(/^api-error: HTTP 500/);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('with onFailure defer, rejects with a SummarizerError and leaves the ledger as it was', async () => {
    const server = await loopback(() => SERVER_ERROR);
    const ledger = anthropicLedger(server, { onFailure: 'defer', maxRetries: 1 });
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    const headBefore = (await ledger.getSession(session.id)).headTurnId;
    const historyBefore = await sessionHistory(ledger, session.id);
    const rowsBefore = countRows(ledger, 'agent_turns');

    const error = await ledger.compact(session.id).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', summarizer: 'anthropic' });
    expect((error as Error).message).toMatch(/deferred/);
    expect(server.requests).toHaveLength(2);

    expect((await ledger.getSession(session.id)).headTurnId).toBe(headBefore);
    const historyAfter = await sessionHistory(ledger, session.id);
    expect(historyAfter).toEqual(historyBefore);
    expect(historyAfter.some((turn) => turn.turnType === 'compaction')).toBe(false);
    expect(countRows(ledger, 'agent_turns')).toBe(rowsBefore);
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('a union-find compaction summarized by the Anthropic model', () => {
  it('makes one request per dirty topic and records each call', async () => {
    const outputs: string[] = [];
    // Each topic's summary cites the first turn the request holds, so it can be told apart.
    const server = await loopback((request) => {
      const firstId = lastUserText(request.body).match(/\[(t_\d+) · /)?.[1] ?? 'none';
      const text = `Topic summary starting at ${firstId} [${firstId}].`;
      outputs.push(text);
      return { kind: 'text', text };
    });
    const ledger = anthropicLedger(server);
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const compaction = await ledger.compact(session.id, { instructions: 'keep the schema decisions' });

    const topics = await topicMembers(ledger, session.id);
    expect(topics).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) {
      expect(request.body.model).toBe(MODEL);
      expect(lastUserText(request.body)).toContain('<instructions>\nkeep the schema decisions\n</instructions>');
    }

    expect(compaction.strategy).toBe('union-find');
    expect(compaction.summarizer).toBe(`anthropic/${MODEL}`);
    expect(metadataOf(compaction).summarizerCalls).toBe(3);
    const calls = metadataOf(compaction).calls as Array<Record<string, unknown>>;
    expect(calls).toEqual(
      server.requests.map((request, index) => ({
        summarizer: 'anthropic',
        model: MODEL,
        inputTokens: request.inputTokens,
        outputTokens: Math.ceil((outputs[index] as string).length / 4),
      })),
    );
    expect(compaction.usage).toEqual(apiUsage(server, outputs));

    // Each topic holds the summary the model wrote for it.
    const summaries = (await ledger.topics(session.id)).map((topic) => topic.summary);
    expect([...summaries].sort()).toEqual([...outputs].sort());
    for (const output of outputs) expect(compaction.summary).toContain(output);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('falls back to extractive for the topic whose summary the guards reject, and records both writers', async () => {
    const server = await loopback((request) =>
      /prometheus/.test(lastUserText(request.body))
        ? { kind: 'text', text: "I'm sorry, but I don't see any conversation to summarize." }
        : { kind: 'text', text: 'A short topic summary [t_000001].' },
    );
    const ledger = anthropicLedger(server);
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    await appendTopics(ledger, session.id, roundRobinPlan(6));
    const compaction = await ledger.compact(session.id);

    expect(server.requests).toHaveLength(3);
    expect(compaction.summarizer.split('+').sort()).toEqual([`anthropic/${MODEL}`, 'extractive']);
    const calls = metadataOf(compaction).calls as Array<Record<string, unknown>>;
    // Three model calls, one of them rejected and followed by the extractive run that replaced it.
    expect(calls.filter((call) => call.summarizer === 'anthropic')).toHaveLength(3);
    expect(calls.filter((call) => call.rejected !== undefined).map((call) => call.rejected)).toEqual(['refusal']);
    const rejectedAt = calls.findIndex((call) => call.rejected === 'refusal');
    expect(calls[rejectedAt + 1]).toMatchObject({ summarizer: 'extractive' });
    expect(metadataOf(compaction).unsummarizedTopics).toBeUndefined();
    expect(compaction.summary).not.toContain("I'm sorry");
    expect(await ledger.doctor()).toEqual([]);
  });
});
