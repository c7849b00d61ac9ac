// Overflow recovery: when the API says the prompt is too long, runTurn compacts once (trigger
// `overflow`) and retries; a second overflow, or a compaction that cannot make room, fails with
// ContextOverflowError and every turn kept. Real SDK against the loopback Messages API, whose
// context window produces the API's own "prompt is too long: N tokens > M maximum".

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { ContextOverflowError, type NormalTurn } from '@agent-ledger/core';
import type { LoopbackApi, RecordedRequest } from '@agent-ledger/loopback-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatRuntime, type RuntimeNotice } from '../src/index.ts';
import {
  chatModel,
  compactions,
  newSession,
  normalTurns,
  overflowReply,
  prose,
  Resources,
  rejection,
  sessionHistory,
} from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

async function setup() {
  const api = await resources.server({ respond: () => ({ kind: 'text', text: 'Noted.' }) });
  const { ledger } = resources.ledgers();
  const notices: RuntimeNotice[] = [];
  const runtime = resources.runtime(
    createChatRuntime({ ledger, model: chatModel(api), onNotice: (notice) => notices.push(notice) }),
  );
  const session = await newSession(ledger);
  return { api, ledger, runtime, session, notices };
}

/** Another runtime on the same ledger and API, as a new process would start: it has seen no answers. */
function afresh(ledger: AgentsLedger, api: LoopbackApi, notices: RuntimeNotice[]) {
  return resources.runtime(createChatRuntime({ ledger, model: chatModel(api), onNotice: (notice) => notices.push(notice) }));
}

function requestAt(api: LoopbackApi, index: number): RecordedRequest {
  const request = api.requests.at(index);
  if (!request) throw new Error(`no request at ${index} (of ${api.requests.length})`);
  return request;
}

async function talk(runtime: ReturnType<typeof createChatRuntime>, sessionId: string, turns: number): Promise<NormalTurn[]> {
  const appended: NormalTurn[] = [];
  for (let index = 0; index < turns; index += 1) appended.push(...(await runtime.runTurn(sessionId, prose(40, index))).turns);
  return appended;
}

describe('one overflow', () => {
  it('compacts with trigger overflow, retries once within the limit and answers', async () => {
    const { api, ledger, runtime, session, notices } = await setup();
    const earlier = await talk(runtime, session.id, 6);
    const limit = requestAt(api, -1).inputTokens;
    // The next prompt holds one more exchange than the last one: it is over the window.
    api.setContextWindow(limit);
    const before = api.requests.length;

    const result = await runtime.runTurn(session.id, prose(40, 50));
    expect(api.requests.length - before).toBe(2);
    expect(requestAt(api, -2).inputTokens).toBeGreaterThan(limit);
    expect(requestAt(api, -1).inputTokens).toBeLessThanOrEqual(limit);
    expect(result.modelCalls).toBe(2);
    expect(result.text).toBe('Noted.');

    const compaction = result.overflowCompaction;
    expect(compaction).toMatchObject({ turnType: 'compaction', trigger: 'overflow', sessionId: session.id });
    expect(result.context.compactionTurnId).toBe(compaction?.id);
    // The retry starts from the compaction's summary.
    expect(String(requestAt(api, -1).body.system)).toContain(`compaction ${compaction?.id}`);
    expect(requestAt(api, -1).body.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: prose(40, 50) }] });

    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history).map((turn) => [turn.id, turn.trigger])).toEqual([[compaction?.id, 'overflow']]);
    // The compaction landed after the user turn it was made for, and the reply after it.
    expect(history.map((turn) => turn.id).slice(-3)).toEqual([result.userTurn.id, compaction?.id, result.reply?.id]);
    expect(normalTurns(history).map((turn) => turn.id)).toEqual([...earlier, ...result.turns].map((turn) => turn.id));
    expect(notices.filter((notice) => notice.type === 'compaction-finished')).toHaveLength(1);
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('a second overflow', () => {
  it('fails with ContextOverflowError saying it is still too long; one compaction, two requests, every turn kept', async () => {
    const { api, ledger, runtime, session, notices } = await setup();
    const earlier = await talk(runtime, session.id, 4);
    api.enqueue(overflowReply(210_000, 200_000), overflowReply(205_000, 200_000));
    const before = api.requests.length;

    // A runtime that saw none of the answers (a new process) has no evidence against these figures and
    // believes them (overflow-misreport.test.ts: the runtime that saw the answers sets them aside).
    const restarted = afresh(ledger, api, notices);
    const error = await rejection(restarted.runTurn(session.id, 'What did we decide about the retry budget?'));
    expect(error).toBeInstanceOf(ContextOverflowError);
    const overflow = error as ContextOverflowError;
    expect(overflow.code).toBe('CONTEXT_OVERFLOW');
    expect(overflow.message).toContain('still too long');
    expect(overflow.message).toContain('after compacting once');
    expect(overflow.message).toContain('Nothing was lost');
    expect([overflow.promptTokens, overflow.limitTokens]).toEqual([205_000, 200_000]);
    expect(overflow.cause).toBeInstanceOf(ContextOverflowError);

    // No overflow → compact → overflow loop: one compaction, two requests, then it stops.
    expect(api.requests.length - before).toBe(2);
    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history).map((turn) => turn.trigger)).toEqual(['overflow']);
    expect(notices.filter((notice) => notice.type === 'compaction-finished')).toHaveLength(1);

    // Intact: every turn once, in order, the question the newest normal turn, the doctor content.
    const normal = normalTurns(history);
    expect(normal.map((turn) => turn.id)).toEqual([...earlier.map((turn) => turn.id), normal.at(-1)?.id]);
    expect(normal.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: 'What did we decide about the retry budget?' }],
    });
    expect(await ledger.doctor()).toEqual([]);
  });

  // The overflow compaction is the head now; the error's advice (respond()) must still work.
  it('leaves a session that respond() can answer once the prompt fits, as the error advises', async () => {
    const { api, ledger, runtime, session, notices } = await setup();
    await talk(runtime, session.id, 4);
    api.enqueue(overflowReply(210_000, 200_000), overflowReply(205_000, 200_000));
    const restarted = afresh(ledger, api, notices);
    await expect(restarted.runTurn(session.id, 'What did we decide about the retry budget?')).rejects.toBeInstanceOf(
      ContextOverflowError,
    );
    const result = await restarted.respond(session.id);
    expect(result.userTurn).toMatchObject({ content: [{ type: 'text', text: 'What did we decide about the retry budget?' }] });
    expect(result.text).toBe('Noted.');
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('when compacting cannot make room', () => {
  it('a single short message in a window the tool definitions alone fill: one actionable error naming the reported window, nothing lost', async () => {
    const { api, ledger, runtime, session } = await setup();
    // The tool definition alone is over this window.
    api.setContextWindow(100);
    const error = await rejection(runtime.runTurn(session.id, 'Is the deploy green?'));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('does not fit');
    expect(error.message).toContain('The model itself reported this window');
    expect(error.message).toContain('it was not sent');
    expect(api.requests).toHaveLength(1);
    // What the API said is kept on the session: the next line is not sent over the limit again.
    expect((await ledger.getSession(session.id)).calibration).toMatchObject({ providerWindowTokens: 100 });

    const history = await sessionHistory(ledger, session.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Is the deploy green?' }] });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(history[0]?.id);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a single huge-ish message fails with ContextOverflowError after one request, the message kept', async () => {
    const { api, ledger, runtime, session } = await setup();
    api.setContextWindow(300);
    const message = prose(120, 1);
    const error = await rejection(runtime.runTurn(session.id, message));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(api.requests).toHaveLength(1);
    const normal = normalTurns(await sessionHistory(ledger, session.id));
    expect(normal).toHaveLength(1);
    expect(normal[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: message }] });
    expect(await ledger.doctor()).toEqual([]);
  });

  // An overflow compaction summarizes at least the oldest unit, but never the message being answered.
  it('a single huge-ish message: one actionable error, no compaction of the message itself', async () => {
    const { api, ledger, runtime, session } = await setup();
    api.setContextWindow(300);
    const error = await rejection(runtime.runTurn(session.id, prose(120, 1)));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('does not fit');
    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history)).toEqual([]);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(history[0]?.id);
  });

  it('the newest message alone over the budget: ContextOverflowError, no request sent, the message kept', async () => {
    const { api, ledger, runtime } = await setup();
    const small = await newSession(ledger, { contextWindow: 400, reserveTokens: 50, keepRecentTokens: 100 });
    const message = prose(120, 2);
    const error = await rejection(runtime.runTurn(small.id, message));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('newest message does not fit');
    expect(error.message).toContain('it was not sent');
    expect(api.requests).toHaveLength(0);

    const history = await sessionHistory(ledger, small.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: message }] });
    expect(error.message).toContain(history[0]?.id);
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('counting tokens before sending (countTokensBeforeSending)', () => {
  it('compacts on the exact count from count-tokens, so no generation request is refused', async () => {
    const api = await resources.server({ respond: () => ({ kind: 'text', text: 'Noted.' }) });
    const { ledger } = resources.ledgers();
    // Summary + recent turns only: the hybrid context's retrieval share would keep the prompt under
    // the limit by itself, and this test is about what the exact count does when it is not.
    const runtime = resources.runtime(
      createChatRuntime({ ledger, model: chatModel(api), countTokensBeforeSending: true, retrieval: false }),
    );
    // The server counts about four characters a token, more than the ledger's estimate: the ledger
    // alone would not see this session as over its limit.
    const session = await newSession(ledger, { contextWindow: 900, reserveTokens: 100, keepRecentTokens: 200 });
    for (let index = 0; index < 10; index += 1) await runtime.runTurn(session.id, prose(40, index));
    await runtime.idle();
    const counted = api.requests.filter((request) => request.route === 'count_tokens');
    expect(counted.length).toBeGreaterThanOrEqual(10);
    // Every prompt sent for generation was counted first and fit the limit.
    for (const request of api.requests.filter((request) => request.route === 'messages')) {
      expect(request.inputTokens).toBeLessThanOrEqual(900 - 100);
    }
    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history).map((compaction) => compaction.trigger)).toContain('overflow');
    expect(normalTurns(history)).toHaveLength(20);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('counts nothing when it is off (the default)', async () => {
    const { api, runtime, session } = await setup();
    await runtime.runTurn(session.id, 'Hello there.');
    expect(api.requests.map((request) => request.route)).toEqual(['messages']);
  });
});
