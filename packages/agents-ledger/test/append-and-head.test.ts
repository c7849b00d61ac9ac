import { countContentTokens, DEFAULT_SESSION_SETTINGS, HeadConflictError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assistantTurn,
  countRows,
  newSession,
  openTempLedger,
  sessionHistory,
  type TempLedger,
  toolResultTurn,
  toolUseTurn,
  userTurn,
} from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('createSession', () => {
  it('creates an empty session with default settings and a label', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ label: 'main' });
    expect(session).toEqual({
      id: 's_000001',
      label: 'main',
      headTurnId: null,
      parentSessionId: null,
      forkedFromTurnId: null,
      rebuildFromRaw: false,
      ignoreCompactionsThroughDepth: null,
      settings: DEFAULT_SESSION_SETTINGS,
      calibration: null,
      compactionStrategy: null,
      createdAt: session.createdAt,
    });
    expect(await ledger.getSession(session.id)).toEqual(session);
  });

  it('lists sessions newest first, with limit and offset', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const a = await ledger.createSession({ label: 'a' });
    const b = await ledger.createSession({ label: 'b' });
    const c = await ledger.createSession({ label: 'c' });
    expect((await ledger.listSessions()).map((session) => session.id)).toEqual([c.id, b.id, a.id]);
    expect((await ledger.listSessions({ limit: 1, offset: 1 })).map((session) => session.id)).toEqual([b.id]);
  });
});

describe('appendTurn', () => {
  it('appends the first turn at depth 0 with no parent and moves the head', async () => {
    temp = openTempLedger({ now: () => 42_000 });
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, {
      role: 'user',
      content: 'Hello ledger.',
      model: 'claude-test',
      metadata: { channel: 'cli' },
    });
    expect(turn).toEqual({
      id: 't_000001',
      sessionId: session.id,
      parentTurnId: null,
      depth: 0,
      timestamp: 42_000,
      tokenCount: countContentTokens(ledger.tokenCounter, [{ type: 'text', text: 'Hello ledger.' }]),
      hasChildren: false,
      metadata: { channel: 'cli' },
      turnType: 'normal',
      role: 'user',
      content: [{ type: 'text', text: 'Hello ledger.' }],
      model: 'claude-test',
      toolCallCount: 0,
      eventIds: [],
    });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(turn.id);
    expect(await ledger.getTurn(turn.id)).toEqual(turn);
  });

  it('chains each turn to the previous head and marks the parent as having children', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const first = await ledger.appendTurn(session.id, userTurn('one'));
    const second = await ledger.appendTurn(session.id, assistantTurn('two'));
    const third = await ledger.appendTurn(session.id, userTurn('three'));
    expect([second.parentTurnId, third.parentTurnId]).toEqual([first.id, second.id]);
    expect([first.depth, second.depth, third.depth]).toEqual([0, 1, 2]);
    expect((await ledger.getTurn(first.id)).hasChildren).toBe(true);
    expect((await ledger.getTurn(third.id)).hasChildren).toBe(false);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(third.id);
  });

  it('counts tool calls and keeps blocks verbatim', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const call = await ledger.appendTurn(session.id, toolUseTurn('toolu_1', 'read_file', { path: 'a.ts' }, 'Reading.'));
    expect(call.toolCallCount).toBe(1);
    expect(call.content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
    ]);
    const result = await ledger.appendTurn(session.id, toolResultTurn('toolu_1', 'file body'));
    expect(result.toolCallCount).toBe(0);
    expect(result.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file body' }]);
  });

  it('keeps an explicit timestamp', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const turn = await ledger.appendTurn(session.id, { ...userTurn('then'), timestamp: 1234 });
    expect(turn.timestamp).toBe(1234);
  });

  it('appends when expectedHeadTurnId matches (null for an empty session)', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const first = await ledger.appendTurn(session.id, { ...userTurn('one'), expectedHeadTurnId: null });
    const second = await ledger.appendTurn(session.id, { ...assistantTurn('two'), expectedHeadTurnId: first.id });
    expect(second.parentTurnId).toBe(first.id);
  });

  it('refuses a stale expectedHeadTurnId with HeadConflictError and writes nothing', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const first = await ledger.appendTurn(session.id, userTurn('one'));
    const second = await ledger.appendTurn(session.id, assistantTurn('two'));
    const rows = countRows(ledger, 'agent_turns');
    const error = await ledger.appendTurn(session.id, { ...userTurn('late'), expectedHeadTurnId: first.id }).catch((e) => e);
    expect(error).toBeInstanceOf(HeadConflictError);
    expect(error).toMatchObject({ code: 'HEAD_CONFLICT', sessionId: session.id, expected: first.id, actual: second.id });
    const fromEmpty = await ledger.appendTurn(session.id, { ...userTurn('late'), expectedHeadTurnId: null }).catch((e) => e);
    expect(fromEmpty).toMatchObject({ code: 'HEAD_CONFLICT', expected: null, actual: second.id });
    expect(countRows(ledger, 'agent_turns')).toBe(rows);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(second.id);
    expect((await ledger.getTurn(second.id)).hasChildren).toBe(false);
  });
});

describe('appendTurns', () => {
  it('appends a batch in order, each turn the parent of the next', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const before = await ledger.appendTurn(session.id, userTurn('start'));
    const batch = await ledger.appendTurns(session.id, [
      { ...assistantTurn('a'), expectedHeadTurnId: before.id },
      userTurn('b'),
      { ...assistantTurn('c'), expectedHeadTurnId: 't_000003' },
    ]);
    expect(batch.map((turn) => turn.id)).toEqual(['t_000002', 't_000003', 't_000004']);
    expect(batch.map((turn) => turn.parentTurnId)).toEqual([before.id, 't_000002', 't_000003']);
    expect((await sessionHistory(ledger, session.id)).map((turn) => turn.id)).toEqual([before.id, ...batch.map((t) => t.id)]);
  });

  it('writes nothing when one turn of the batch has a stale expectedHeadTurnId', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const head = await ledger.appendTurn(session.id, userTurn('start'));
    const rows = countRows(ledger, 'agent_turns');
    await expect(
      ledger.appendTurns(session.id, [assistantTurn('a'), userTurn('b'), { ...assistantTurn('c'), expectedHeadTurnId: head.id }]),
    ).rejects.toBeInstanceOf(HeadConflictError);
    expect(countRows(ledger, 'agent_turns')).toBe(rows);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(head.id);
    expect((await ledger.getTurn(head.id)).hasChildren).toBe(false);
  });

  it('accepts an empty batch and writes nothing', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    expect(await ledger.appendTurns(session.id, [])).toEqual([]);
    expect((await ledger.getSession(session.id)).headTurnId).toBeNull();
  });
});
