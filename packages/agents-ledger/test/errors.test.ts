import {
  CompactionWouldNotShrinkError,
  EmptySessionError,
  HeadConflictError,
  InvalidInputError,
  LedgerError,
  MessageTooLargeError,
  NothingToCompactError,
  SessionNotFoundError,
  TurnNotFoundError,
} from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger, AppendTurnInput } from '../src/index.ts';
import {
  appendConversation,
  countRows,
  fullHistory,
  hugeSummarizer,
  newSession,
  openTempLedger,
  prose,
  type TempLedger,
  userTurn,
} from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function caught(promise: Promise<unknown>, what = 'the call'): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${what} to reject`);
}

/** Asserts a typed ledger error: its class, its code, and that isInstance recognizes it. */
function expectLedgerError(error: unknown, type: new (...args: never[]) => LedgerError, code: string): void {
  expect(error).toBeInstanceOf(type);
  expect(LedgerError.isInstance(error)).toBe(true);
  expect((error as LedgerError).code).toBe(code);
  expect((error as LedgerError).name).toBe(type.name);
  expect((error as LedgerError).message.length).toBeGreaterThan(10);
}

async function withTurns(ledger: AgentsLedger) {
  const session = await newSession(ledger);
  const ids = await appendConversation(ledger, session.id, 4);
  return { session, ids };
}

describe('unknown ids', () => {
  it('TurnNotFoundError for every read or fork of an unknown turn', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    await withTurns(ledger);
    const attempts: Promise<unknown>[] = [
      ledger.getTurn('t_missing'),
      ledger.buildContext('t_missing'),
      fullHistory(ledger, 't_missing'),
      ledger.getSummarizedTurns('t_missing'),
      ledger.findLatestCompaction('t_missing'),
      ledger.findCompactionThatSummarized('t_missing'),
      ledger.forkFrom('t_missing'),
    ];
    for (const attempt of attempts) {
      const error = await caught(attempt);
      expectLedgerError(error, TurnNotFoundError, 'TURN_NOT_FOUND');
      expect((error as TurnNotFoundError).turnId).toBe('t_missing');
    }
    expect(countRows(ledger, 'agent_sessions')).toBe(1);
  });

  it('SessionNotFoundError for every operation on an unknown session', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { ids } = await withTurns(ledger);
    const attempts: Promise<unknown>[] = [
      ledger.getSession('s_missing'),
      ledger.appendTurn('s_missing', userTurn('hi')),
      ledger.appendTurns('s_missing', [userTurn('hi')]),
      ledger.compact('s_missing'),
      ledger.contextUsage('s_missing'),
      ledger.shouldCompact('s_missing'),
      ledger.tree('s_missing'),
      ledger.buildContext(ids[0] as string, { sessionId: 's_missing' }),
      ledger.findCompactionThatSummarized(ids[0] as string, { sessionId: 's_missing' }),
    ];
    for (const attempt of attempts) {
      const error = await caught(attempt);
      expectLedgerError(error, SessionNotFoundError, 'SESSION_NOT_FOUND');
      expect((error as SessionNotFoundError).sessionId).toBe('s_missing');
    }
    expect(countRows(ledger, 'agent_turns')).toBe(4);
  });
});

describe('writes refused', () => {
  it('HeadConflictError names the expected and the actual head', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, ids } = await withTurns(ledger);
    const error = await caught(ledger.appendTurn(session.id, { ...userTurn('x'), expectedHeadTurnId: ids[1] }));
    expectLedgerError(error, HeadConflictError, 'HEAD_CONFLICT');
    expect(error).toMatchObject({ sessionId: session.id, expected: ids[1], actual: ids[3] });
  });

  it('EmptySessionError when compacting a session with no turns', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const error = await caught(ledger.compact(session.id));
    expectLedgerError(error, EmptySessionError, 'EMPTY_SESSION');
    expect((error as EmptySessionError).sessionId).toBe(session.id);
    expect(countRows(ledger, 'agent_turns')).toBe(0);
  });

  it('NothingToCompactError when no turn was added since a compaction that kept nothing', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens: 5 });
    await appendConversation(ledger, session.id, 10, 40);
    await ledger.compact(session.id);
    const error = await caught(ledger.compact(session.id));
    expectLedgerError(error, NothingToCompactError, 'NOTHING_TO_COMPACT');
  });

  it('CompactionWouldNotShrinkError is a LedgerError', async () => {
    temp = openTempLedger({ summarizer: hugeSummarizer() });
    const { ledger } = temp;
    const { session } = await withTurns(ledger);
    // After an overflow the oldest unit is summarized even though every turn fits keepRecentTokens.
    expectLedgerError(
      await caught(ledger.compact(session.id, { trigger: 'overflow' })),
      CompactionWouldNotShrinkError,
      'COMPACTION_WOULD_NOT_SHRINK',
    );
  });

  it('InvalidInputError for a bad role or content, and nothing is written', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, ids } = await withTurns(ledger);
    const bad: { input: unknown; field: string }[] = [
      { input: { role: 'system', content: 'x' }, field: 'role' },
      { input: { role: undefined, content: 'x' }, field: 'role' },
      { input: { role: 'user', content: [] }, field: 'content' },
      { input: { role: 'user', content: 42 }, field: 'content' },
      { input: { role: 'user', content: [null] }, field: 'content[0]' },
      { input: { role: 'user', content: [{ type: 'image', source: {} }] }, field: 'content[0]' },
      { input: { role: 'user', content: [{ type: 'text', text: 7 }] }, field: 'content[0]' },
      { input: { role: 'assistant', content: [{ type: 'tool_use', id: '', name: 'x', input: {} }] }, field: 'content[0]' },
      { input: { role: 'assistant', content: [{ type: 'tool_use', id: 'a', input: {} }] }, field: 'content[0]' },
      { input: { role: 'user', content: [{ type: 'text', text: 'ok' }, { type: 'tool_result' }] }, field: 'content[1]' },
      { input: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 5 }] }, field: 'content[0]' },
    ];
    const rows = countRows(ledger, 'agent_turns');
    for (const { input, field } of bad) {
      const error = await caught(ledger.appendTurn(session.id, input as AppendTurnInput), JSON.stringify(input));
      expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
      expect((error as InvalidInputError).field, JSON.stringify(input)).toBe(field);
      // In a batch, one bad turn rejects the good ones too.
      const batchError = await caught(ledger.appendTurns(session.id, [userTurn('fine'), input as AppendTurnInput]));
      expectLedgerError(batchError, InvalidInputError, 'INVALID_INPUT');
    }
    expect(countRows(ledger, 'agent_turns')).toBe(rows);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(ids[3]);
  });

  // The Messages API rejects empty text blocks, so the ledger refuses them up front.
  it('InvalidInputError for empty string content, and nothing is written', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, ids } = await withTurns(ledger);
    const error = await caught(ledger.appendTurn(session.id, { role: 'user', content: '' }), 'empty content');
    expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
    expect((await ledger.getSession(session.id)).headTurnId).toBe(ids[3]);
  });

  it('InvalidInputError for bad session settings, an unknown strategy and a normal turn as a compaction', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, ids } = await withTurns(ledger);
    const settings: { settings: Record<string, number>; field: string }[] = [
      { settings: { contextWindow: -1 }, field: 'contextWindow' },
      { settings: { contextWindow: 1.5 }, field: 'contextWindow' },
      { settings: { contextWindow: 1000, reserveTokens: 1000, keepRecentTokens: 10 }, field: 'reserveTokens' },
      { settings: { contextWindow: 1000, reserveTokens: 100, keepRecentTokens: 900 }, field: 'keepRecentTokens' },
    ];
    for (const { settings: bad, field } of settings) {
      const error = await caught(ledger.createSession({ settings: bad }));
      expectLedgerError(error, InvalidInputError, 'INVALID_INPUT');
      expect((error as InvalidInputError).field).toBe(field);
    }
    expect(countRows(ledger, 'agent_sessions')).toBe(1);
    // A window given alone is no error: the reserve and the raw share keep the defaults' proportion.
    const small = await ledger.createSession({ settings: { contextWindow: 8000 } });
    expect(small.settings).toEqual({ contextWindow: 8000, reserveTokens: 800, keepRecentTokens: 1200 });
    const partly = await ledger.createSession({ settings: { contextWindow: 8000, reserveTokens: 100 } });
    expect(partly.settings).toEqual({ contextWindow: 8000, reserveTokens: 100, keepRecentTokens: 1200 });
    expect(countRows(ledger, 'agent_sessions')).toBe(3);
    expectLedgerError(await caught(ledger.compact(session.id, { strategy: 'nope' })), InvalidInputError, 'INVALID_INPUT');
    expectLedgerError(await caught(ledger.getSummarizedTurns(ids[0] as string)), InvalidInputError, 'INVALID_INPUT');
    const forkError = await caught(ledger.forkFrom(ids[0] as string, { settings: { reserveTokens: 10_000_000 } }));
    expectLedgerError(forkError, InvalidInputError, 'INVALID_INPUT');
    expect(countRows(ledger, 'agent_sessions')).toBe(3);
  });

  it('MessageTooLargeError for a turn over the context window, and nothing is written', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 200, reserveTokens: 20, keepRecentTokens: 50 });
    const head = await ledger.appendTurn(session.id, userTurn('small'));
    const huge = prose(400, 3);
    const error = await caught(ledger.appendTurn(session.id, userTurn(huge)));
    expectLedgerError(error, MessageTooLargeError, 'MESSAGE_TOO_LARGE');
    expect((error as MessageTooLargeError).limit).toBe(200);
    expect((error as MessageTooLargeError).tokens).toBeGreaterThan(200);
    // The good turn before it in the same batch is rolled back too.
    expectLedgerError(
      await caught(ledger.appendTurns(session.id, [userTurn('fine'), userTurn(huge)])),
      MessageTooLargeError,
      'MESSAGE_TOO_LARGE',
    );
    expect(countRows(ledger, 'agent_turns')).toBe(1);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(head.id);
  });
});

describe('LedgerError.isInstance', () => {
  it('recognizes ledger errors by brand, not by prototype', () => {
    const foreign = Object.assign(new Error('from another copy'), { [Symbol.for('nexus.LedgerError')]: true, code: 'X' });
    expect(LedgerError.isInstance(foreign)).toBe(true);
    expect(LedgerError.isInstance(new Error('plain'))).toBe(false);
    expect(LedgerError.isInstance(null)).toBe(false);
    expect(LedgerError.isInstance('TURN_NOT_FOUND')).toBe(false);
    expect(LedgerError.isInstance(new TurnNotFoundError('t'))).toBe(true);
  });
});

describe('buildContext budget', () => {
  it('refuses a negative or NaN budget with InvalidInputError', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { ids } = await withTurns(ledger);
    for (const budgetTokens of [-5, Number.NaN]) {
      expectLedgerError(
        await caught(ledger.buildContext(ids[0] as string, { budgetTokens })),
        InvalidInputError,
        'INVALID_INPUT',
      );
    }
  });
});
