// The agents ledger beside the events ledger on one file: turns cite events (the agents ledger owns
// the link, turnsCiting included), and nothing the agents ledger does (compaction included) ever
// touches an event. The events ledger is a dev dependency: only these tests use it, to write the
// events a turn cites and to check they stay as written.

import { EventNotFoundError, type IdGenerator, LedgerError, sequentialIds, type Turn } from '@agent-ledger/core';
import { createEventsLedger, type EventsLedger, openEventsLedger } from '@agent-ledger/events-ledger';
import { openLedgerStore } from '@agent-ledger/store';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, createAgentsLedger } from '../src/index.ts';
import { fullHistory, openTempLedger, type TempLedger } from './builders.ts';

let temp: TempLedger;
let closables: Array<{ close(): Promise<void> }> = [];

/** Closes `closable` (an events ledger, a store) before the temp ledger goes. */
function closeAfter(closable: { close(): Promise<void> }): void {
  closables.push(closable);
}

afterEach(async () => {
  for (const closable of closables) await closable.close();
  closables = [];
  temp.cleanup();
});

/** An agents ledger (deterministic ids, a clock that steps one second) and an events ledger on one file. */
function setup(generateTurnIds: IdGenerator = sequentialIds()): { events: EventsLedger; agents: AgentsLedger } {
  temp = openTempLedger({ generateId: generateTurnIds });
  let clock = 1_700_000_000_000;
  const events = openEventsLedger(temp.file, {
    generateId: sequentialIds(),
    now: () => {
      clock += 1000;
      return clock;
    },
  });
  closeAfter(events);
  return { events, agents: temp.ledger };
}

/** Runs `read` on a connection of its own to the file, as another program would. */
function readRaw<T>(ledger: { store: { location: string } }, read: (sqlite: ReturnType<typeof openRawSqlite>) => T): T {
  const sqlite = openRawSqlite(ledger.store.location, { readonly: true });
  try {
    return read(sqlite);
  } finally {
    sqlite.close();
  }
}

function countRows(ledger: { store: { location: string } }, table: 'agent_turns' | 'turn_events'): number {
  return readRaw(ledger, (sqlite) => (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
}

/** Every stored byte of the events table, in (channel, seq) order. */
function eventsSnapshot(ledger: { store: { location: string } }): string {
  return readRaw(ledger, (sqlite) =>
    JSON.stringify(
      sqlite
        .prepare(
          'SELECT id, channel, external_id, author, kind, hex(payload) AS payload, occurred_at, received_at, seq, prev_hash, hash ' +
            'FROM events ORDER BY channel, seq',
        )
        .all(),
    ),
  );
}

function turnEventsSnapshot(ledger: { store: { location: string } }): string {
  return readRaw(ledger, (sqlite) =>
    JSON.stringify(sqlite.prepare('SELECT * FROM turn_events ORDER BY turn_id, event_id').all()),
  );
}

/** The error a promise rejects with; fails the test when it resolves. */
async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

/** Asserts a typed ledger error: its class, its code, and that isInstance recognizes it. */
function expectLedgerError(error: unknown, type: abstract new (...args: never[]) => LedgerError, code: string): void {
  expect(error).toBeInstanceOf(type);
  expect(LedgerError.isInstance(error)).toBe(true);
  expect((error as LedgerError).code).toBe(code);
  expect((error as LedgerError).message.length).toBeGreaterThan(10);
}

const WORDS = ['deploy', 'ticket', 'schema', 'retry', 'customer', 'invoice', 'cache', 'queue', 'review', 'incident', 'budget'];

/** Deterministic sentences of `words` words, so the extractive summarizer has material. */
function prose(words: number, seed: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    const word = WORDS[(seed * 7 + index * 3 + ((seed * index) % 5)) % WORDS.length] ?? 'word';
    out.push(index % 8 === 7 ? `${word}${seed}.` : word);
  }
  return `${out.join(' ')}.`;
}

describe('turns cite events', () => {
  it('the link is visible from the turn, its history, its context and the event', async () => {
    const { events, agents } = setup();
    const { event } = await events.append({ channel: 'slack:C1', externalId: 'msg-1', payload: { text: 'deploy failed' } });
    const session = await agents.createSession();
    const before = await agents.appendTurn(session.id, { role: 'user', content: 'no citation' });
    const turn = await agents.appendTurn(session.id, { role: 'user', content: 'deploy failed, help', eventIds: [event.id] });
    const reply = await agents.appendTurn(session.id, { role: 'assistant', content: 'looking' });

    expect(turn.eventIds).toEqual([event.id]);
    const stored = await agents.getTurn(turn.id);
    expect(stored.turnType === 'normal' && stored.eventIds).toEqual([event.id]);

    const history = await fullHistory(agents, reply.id);
    expect(history.map((each) => [each.id, each.turnType === 'normal' ? each.eventIds : null])).toEqual([
      [before.id, []],
      [turn.id, [event.id]],
      [reply.id, []],
    ]);

    const context = await agents.buildContext(reply.id);
    expect(context.citedEvents[turn.id]).toContain(event.id);
    expect(Object.keys(context.citedEvents)).toEqual([turn.id]);

    expect(await agents.turnsCiting(event.id)).toEqual([turn.id]);
  });

  it('a turn can cite several events of several channels, and an event can be cited by several turns', async () => {
    // Turn ids that sort against their order of writing, so "oldest link first" is really tested.
    const ids = ['t_zz', 't_mm', 't_aa'];
    const { events, agents } = setup((kind) => (kind === 'turn' ? (ids.shift() ?? 't_extra') : `s_${kind}`));
    const results = await events.appendBatch([
      { channel: 'email', externalId: '1', payload: 'mail' },
      { channel: 'slack', externalId: '1', payload: 'chat' },
      { channel: 'slack', externalId: '2', payload: 'chat 2' },
    ]);
    const [mail, chat, chat2] = results.map((result) => result.event.id) as [string, string, string];
    const session = await agents.createSession();
    const first = await agents.appendTurn(session.id, { role: 'user', content: 'both', eventIds: [mail, chat, chat] });
    const second = await agents.appendTurn(session.id, { role: 'assistant', content: 'answer', eventIds: [chat] });
    const third = await agents.appendTurn(session.id, { role: 'user', content: 'again', eventIds: [chat2, chat] });

    expect([first.id, second.id, third.id]).toEqual(['t_zz', 't_mm', 't_aa']);
    const firstStored = await agents.getTurn(first.id);
    expect(firstStored.turnType === 'normal' && [...firstStored.eventIds].sort()).toEqual([mail, chat].sort());
    expect(countRows(events, 'turn_events')).toBe(5);
    expect(await agents.turnsCiting(chat)).toEqual([first.id, second.id, third.id]);
    expect(await agents.turnsCiting(mail)).toEqual([first.id]);
    expect(await agents.turnsCiting(chat2)).toEqual([third.id]);

    const context = await agents.buildContext(third.id);
    expect(Object.keys(context.citedEvents).sort()).toEqual([first.id, second.id, third.id].sort());
    expect([...(context.citedEvents[third.id] ?? [])].sort()).toEqual([chat2, chat].sort());
  });

  it('works the same with both ledgers on one shared store', async () => {
    temp = openTempLedger();
    const store = openLedgerStore(temp.file);
    closeAfter(store);
    const events = createEventsLedger({ store, generateId: sequentialIds() });
    const agents = createAgentsLedger({ store, generateId: sequentialIds() });
    const { event } = await events.append({ channel: 'c', externalId: 'shared', payload: { text: 'hi' } });
    const session = await agents.createSession();
    const turn = await agents.appendTurn(session.id, { role: 'user', content: 'hi', eventIds: [event.id] });
    expect(await agents.turnsCiting(event.id)).toEqual([turn.id]);
    expect((await agents.buildContext(turn.id)).citedEvents).toEqual({ [turn.id]: [event.id] });
    // Another store on the file (an agents ledger of its own) sees the committed link too.
    const other = temp.reopen();
    expect(await other.turnsCiting(event.id)).toEqual([turn.id]);
    const ownEvents = openEventsLedger(temp.file);
    closeAfter(ownEvents);
    expect((await ownEvents.get(event.id)).id).toBe(event.id);
  });

  it('an event nobody cites has no citing turns', async () => {
    const { events, agents } = setup();
    const { event } = await events.append({ channel: 'c', externalId: '1', payload: 1 });
    expect(await agents.turnsCiting(event.id)).toEqual([]);
  });

  it('turnsCiting an unknown event throws EventNotFoundError naming the id', async () => {
    const { events, agents } = setup();
    await events.append({ channel: 'c', externalId: '1', payload: 1 });
    const error = await caught(agents.turnsCiting('e_missing'));
    expectLedgerError(error, EventNotFoundError, 'EVENT_NOT_FOUND');
    expect((error as EventNotFoundError).eventId).toBe('e_missing');
    expect((error as Error).message).toContain('e_missing');
  });

  it('citing an unknown event id throws EventNotFoundError and writes no turn and no link', async () => {
    const { events, agents } = setup();
    const { event } = await events.append({ channel: 'c', externalId: '1', payload: 1 });
    const session = await agents.createSession();
    const head = await agents.appendTurn(session.id, { role: 'user', content: 'first' });
    const snapshot = [countRows(events, 'agent_turns'), turnEventsSnapshot(events), eventsSnapshot(events)];

    const single = await caught(
      agents.appendTurn(session.id, { role: 'assistant', content: 'x', eventIds: [event.id, 'e_nope'] }),
    );
    expectLedgerError(single, EventNotFoundError, 'EVENT_NOT_FOUND');
    expect((single as EventNotFoundError).eventId).toBe('e_nope');

    // In a batch, the bad citation of the second turn refuses the first turn too.
    const batch = await caught(
      agents.appendTurns(session.id, [
        { role: 'assistant', content: 'fine', eventIds: [event.id] },
        { role: 'user', content: 'bad', eventIds: ['e_also_missing'] },
      ]),
    );
    expectLedgerError(batch, EventNotFoundError, 'EVENT_NOT_FOUND');

    expect([countRows(events, 'agent_turns'), turnEventsSnapshot(events), eventsSnapshot(events)]).toEqual(snapshot);
    expect((await agents.getSession(session.id)).headTurnId).toBe(head.id);
    expect(await agents.turnsCiting(event.id)).toEqual([]);
  });
});

describe('compaction never touches events', () => {
  it('200 events and 200 citing turns through many compactions: events byte-identical, links intact, verify ok', async () => {
    const { events, agents } = setup();
    const inputs = Array.from({ length: 200 }, (_, index) => ({
      channel: index % 3 === 0 ? 'email:support' : 'slack:C42',
      externalId: `ext-${index}`,
      author: index % 2 === 0 ? 'customer' : null,
      payload: { text: prose(30, index), index },
    }));
    const eventIds = (await events.appendBatch(inputs)).map((result) => result.event.id);
    const snapshot = eventsSnapshot(events);
    expect((await events.verify()).ok).toBe(true);

    const session = await agents.createSession({ settings: { contextWindow: 1400, reserveTokens: 150, keepRecentTokens: 350 } });
    const turnIds: string[] = [];
    let compactions = 0;
    for (const [index, eventId] of eventIds.entries()) {
      const turn = await agents.appendTurn(session.id, {
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: prose(40, index),
        eventIds: [eventId],
      });
      turnIds.push(turn.id);
      if (await agents.shouldCompact(session.id)) {
        await agents.compact(session.id, { trigger: 'threshold' });
        compactions += 1;
      }
    }
    expect(compactions).toBeGreaterThanOrEqual(5);

    expect(eventsSnapshot(events)).toBe(snapshot);
    expect(await events.verify()).toEqual({ ok: true, checked: 200, channels: 2 });
    expect(countRows(events, 'turn_events')).toBe(200);

    for (const [index, eventId] of eventIds.entries()) {
      expect(await agents.turnsCiting(eventId)).toEqual([turnIds[index]]);
    }
    const head = (await agents.getSession(session.id)).headTurnId ?? '';
    const history: Turn[] = await fullHistory(agents, head);
    const normal = history.filter((turn) => turn.turnType === 'normal');
    expect(history.length - normal.length).toBe(compactions);
    expect(normal.map((turn) => turn.id)).toEqual(turnIds);
    expect(normal.map((turn) => turn.eventIds)).toEqual(eventIds.map((id) => [id]));

    // The context after all these compactions cites exactly the events of the raw turns it kept.
    const context = await agents.buildContext(head);
    expect(context.compactionTurnId).not.toBeNull();
    const kept = context.includedTurnIds.filter((id) => turnIds.includes(id));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(200);
    expect(context.citedEvents).toEqual(Object.fromEntries(kept.map((id) => [id, [eventIds[turnIds.indexOf(id)]]])));
  }, 60_000);
});
