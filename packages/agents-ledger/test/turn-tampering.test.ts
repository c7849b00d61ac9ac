// Turns are tamper-evident (issue 29): an attacker who can drop the append-only triggers and write
// raw SQL changes, removes, relinks, cuts or rehashes turns and moves heads; each change is found by
// doctor (the hash chain, the heads) or by verifying against a checkpoint taken before it. On both
// engines, on a line with a compaction, cited events and a fork. The untouched ledger passes both,
// so every case below fails if its change goes unnoticed.

import type { NormalTurn, Turn } from '@agent-ledger/core';
import { createEventsLedger } from '@agent-ledger/events-ledger';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger, SessionHeadMark } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';
import { type EngineLedger, engines, openEngineLedger, prose, SMALL_SETTINGS } from './builders.ts';
import { openAttacker, type RawAccess, rehashEverything } from './support/tamper.ts';

interface Scene {
  opened: EngineLedger;
  /** The main session's line, oldest first: normal turns and one compaction. */
  line: Turn[];
  compaction: Turn;
  mainId: string;
  forkId: string;
  /** The fork's own turns, oldest first (it forks at line[3]). */
  forkTurns: Turn[];
  eventIds: string[];
  checkpoint: SessionHeadMark[];
}

async function buildScene(engine: 'sqlite' | 'postgres'): Promise<Scene> {
  const opened = await openEngineLedger(engine, {}, 'tamper');
  const { ledger } = opened;
  const events = createEventsLedger({ store: storeOf(ledger) });
  const eventIds: string[] = [];
  for (const externalId of ['m-1', 'm-2', 'm-3'])
    eventIds.push((await events.append({ channel: 'chat', externalId, payload: { text: externalId } })).event.id);
  const main = await ledger.createSession({ label: 'main', settings: SMALL_SETTINGS });
  for (let index = 0; index < 8; index += 1) {
    await ledger.appendTurn(main.id, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: prose(60, index + 1),
      ...(index === 2 ? { eventIds: [eventIds[0] as string, eventIds[1] as string] } : {}),
      ...(index === 4 ? { metadata: { author: 'ann' } } : {}),
    });
  }
  const compaction = await ledger.compact(main.id);
  for (let index = 8; index < 10; index += 1)
    await ledger.appendTurn(main.id, { role: index % 2 === 0 ? 'user' : 'assistant', content: prose(20, index + 1) });
  const line = await lineOf(ledger, main.id);
  const fork = (await ledger.forkFrom((line[3] as Turn).id, { label: 'what-if' })).session;
  await ledger.appendTurn(fork.id, { role: 'user', content: 'and if we had waited?' });
  await ledger.appendTurn(fork.id, { role: 'assistant', content: 'then the cache stays cold.' });
  const forkTurns = (await lineOf(ledger, fork.id)).filter((turn) => turn.sessionId === fork.id);
  return {
    opened,
    line,
    compaction,
    mainId: main.id,
    forkId: fork.id,
    forkTurns,
    eventIds,
    checkpoint: await ledger.checkpoint(),
  };
}

async function lineOf(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const session = await ledger.getSession(sessionId);
  const turns: Turn[] = [];
  for await (const turn of ledger.getFullHistory(session.headTurnId as string)) turns.push(turn);
  return turns;
}

interface Tampering {
  name: string;
  /** Found by doctor alone, or only by verifying against the checkpoint taken before the change. */
  foundBy: 'doctor' | 'checkpoint';
  codes: string[];
  change(raw: RawAccess, scene: Scene): Promise<void>;
}

const id = (turn: Turn | undefined) => (turn as Turn).id;
const text = (value: string) => JSON.stringify([{ type: 'text', text: value }]);
const setTurn = (raw: RawAccess, turn: Turn | undefined, column: string, value: unknown) =>
  raw.run(`UPDATE agent_turns SET ${column} = ? WHERE id = ?`, [value, id(turn)]);
const deleteTurn = (raw: RawAccess, turn: Turn | undefined) => raw.run('DELETE FROM agent_turns WHERE id = ?', [id(turn)]);
const setHead = (raw: RawAccess, sessionId: string, turn: Turn | undefined | null) =>
  raw.run('UPDATE agent_sessions SET head_turn_id = ? WHERE id = ?', [turn ? turn.id : null, sessionId]);
const mismatch = ['TURN_HASH_MISMATCH'];

const TAMPERINGS: Tampering[] = [
  {
    name: "a middle turn's text",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[2], 'content', text('we never deployed')),
  },
  {
    name: "the head turn's text",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line.at(-1), 'content', text('all fine')),
  },
  { name: 'a role flipped', foundBy: 'doctor', codes: mismatch, change: (raw, s) => setTurn(raw, s.line[1], 'role', 'user') },
  {
    name: 'metadata added',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[3], 'metadata', '{"author":"mallory"}'),
  },
  {
    name: 'metadata changed',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[4], 'metadata', '{"author":"bob"}'),
  },
  {
    name: 'the model named',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[1], 'model', 'gpt-evil'),
  },
  { name: 'a timestamp moved', foundBy: 'doctor', codes: mismatch, change: (raw, s) => setTurn(raw, s.line[5], 'timestamp', 42) },
  { name: 'a token count', foundBy: 'doctor', codes: mismatch, change: (raw, s) => setTurn(raw, s.line[5], 'token_count', 1) },
  {
    name: 'a tool call count',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[5], 'tool_call_count', 3),
  },
  {
    name: "the compaction's summary",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.compaction, 'summary', 'Nothing happened.'),
  },
  {
    name: "the compaction's summarized-through pointer",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.compaction, 'summarized_through_turn_id', id(s.line[0])),
  },
  {
    name: "the compaction's first kept pointer",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.compaction, 'first_kept_turn_id', id(s.line[1])),
  },
  {
    name: "the compaction's tokens before",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.compaction, 'tokens_before', 1),
  },
  {
    name: 'a turn moved to another session',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[1], 'session_id', s.forkId),
  },
  {
    name: 'a depth changed',
    foundBy: 'doctor',
    codes: ['TURN_DEPTH_MISMATCH', ...mismatch],
    change: (raw, s) => setTurn(raw, s.line.at(-1), 'depth', 99),
  },
  {
    name: 'two turns swapped their text',
    foundBy: 'doctor',
    codes: mismatch,
    change: async (raw, s) => {
      await setTurn(raw, s.line[1], 'content', JSON.stringify((s.line[3] as NormalTurn).content));
      await setTurn(raw, s.line[3], 'content', JSON.stringify((s.line[1] as NormalTurn).content));
    },
  },
  {
    name: 'a middle turn removed and its child relinked',
    foundBy: 'doctor',
    codes: ['TURN_DEPTH_MISMATCH', ...mismatch],
    change: async (raw, s) => {
      await setTurn(raw, s.line[2], 'parent_turn_id', id(s.line[0]));
      await deleteTurn(raw, s.line[1]);
    },
  },
  {
    name: 'a middle turn removed, its child relinked and the depths closed up',
    foundBy: 'doctor',
    codes: mismatch,
    change: async (raw, s) => {
      // The fork hangs off line[3]: remove from its own session only what comes after it.
      const later = s.line.filter((turn) => turn.sessionId === s.mainId && turn.depth > 8);
      await deleteTurn(raw, s.line[8]);
      await setTurn(raw, later[0], 'parent_turn_id', id(s.line[7]));
      for (const turn of later) await setTurn(raw, turn, 'depth', turn.depth - 1);
    },
  },
  {
    name: 'the newest turn cut and the head moved back',
    foundBy: 'checkpoint',
    codes: ['TURNS_CUT'],
    change: async (raw, s) => {
      await setHead(raw, s.mainId, s.line.at(-2));
      await deleteTurn(raw, s.line.at(-1));
    },
  },
  {
    name: 'the newest three turns cut and the head moved back',
    foundBy: 'checkpoint',
    codes: ['TURNS_CUT'],
    change: async (raw, s) => {
      await setHead(raw, s.mainId, s.line.at(-4));
      for (const turn of s.line.slice(-3)) await deleteTurn(raw, turn);
    },
  },
  {
    name: 'the head moved back, turns left behind',
    foundBy: 'doctor',
    codes: ['HEAD_BEHIND'],
    change: (raw, s) => setHead(raw, s.mainId, s.line.at(-3)),
  },
  { name: 'the head cleared', foundBy: 'doctor', codes: ['HEAD_MISSING'], change: (raw, s) => setHead(raw, s.mainId, null) },
  {
    name: "the head moved to another session's turn",
    foundBy: 'doctor',
    codes: ['HEAD_ELSEWHERE'],
    change: (raw, s) => setHead(raw, s.mainId, s.forkTurns.at(-1)),
  },
  {
    name: 'the head named a turn that does not exist',
    foundBy: 'doctor',
    codes: ['HEAD_UNRESOLVED'],
    change: (raw, s) => raw.run('UPDATE agent_sessions SET head_turn_id = ? WHERE id = ?', ['turn_forged', s.mainId]),
  },
  {
    name: 'a session emptied',
    foundBy: 'checkpoint',
    codes: ['TURNS_CUT', 'SESSION_EMPTIED'],
    change: async (raw, s) => {
      await setHead(raw, s.forkId, null);
      for (const turn of s.forkTurns) await deleteTurn(raw, turn);
    },
  },
  {
    name: 'a session removed',
    foundBy: 'checkpoint',
    codes: ['SESSION_REMOVED'],
    change: async (raw, s) => {
      for (const turn of s.forkTurns) await deleteTurn(raw, turn);
      await raw.run('DELETE FROM agent_sessions WHERE id = ?', [s.forkId]);
    },
  },
  {
    name: "a turn's event link deleted",
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => raw.run('DELETE FROM turn_events WHERE turn_id = ? AND event_id = ?', [id(s.line[2]), s.eventIds[0]]),
  },
  {
    name: 'an event link added',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => raw.run('INSERT INTO turn_events (turn_id, event_id) VALUES (?, ?)', [id(s.line[5]), s.eventIds[2]]),
  },
  {
    name: 'an event link moved to another turn',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) =>
      raw.run('UPDATE turn_events SET turn_id = ? WHERE turn_id = ? AND event_id = ?', [
        id(s.line[4]),
        id(s.line[2]),
        s.eventIds[1],
      ]),
  },
  {
    name: 'a stored hash replaced',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[4], 'hash', 'f'.repeat(64)),
  },
  {
    name: 'a stored hash erased',
    foundBy: 'doctor',
    codes: ['TURN_HASH_MISSING'],
    change: (raw, s) => setTurn(raw, s.line[4], 'hash', null),
  },
  {
    name: 'a turn changed and every hash recomputed',
    foundBy: 'checkpoint',
    codes: ['CHAIN_REWRITTEN'],
    change: async (raw, s) => {
      await setTurn(raw, s.line[2], 'content', text('we never deployed'));
      await rehashEverything(storeOf(s.opened.ledger), raw);
    },
  },
  {
    name: 'the newest turn replaced by a forged one with a valid hash',
    foundBy: 'checkpoint',
    codes: ['TURNS_CUT'],
    change: async (raw, s) => {
      const newest = s.line.at(-1) as Turn;
      await setTurn(raw, newest, 'id', 'turn_forged');
      await setHead(raw, s.mainId, { ...newest, id: 'turn_forged' });
      await rehashEverything(storeOf(s.opened.ledger), raw);
    },
  },
  {
    name: 'a forged turn slipped into the middle',
    foundBy: 'doctor',
    codes: ['TURN_DEPTH_MISMATCH', ...mismatch],
    change: async (raw, s) => {
      const before = s.line[8] as Turn;
      await raw.run(
        'INSERT INTO agent_turns (id, session_id, parent_turn_id, depth, role, content, token_count, timestamp, tool_call_count, ' +
          "turn_type, cumulative_tokens, hash) VALUES ('turn_forged', ?, ?, ?, 'user', ?, 3, 1, 0, 'normal', 3, ?)",
        [s.mainId, before.id, 50, text('approve the refund'), 'a'.repeat(64)],
      );
      await setTurn(raw, s.line[9], 'parent_turn_id', 'turn_forged');
    },
  },
  {
    name: 'a turn of the shared prefix changed',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line[0], 'content', text('hello mallory')),
  },
  {
    name: "a fork's first turn relinked",
    foundBy: 'doctor',
    codes: ['TURN_DEPTH_MISMATCH', ...mismatch],
    change: (raw, s) => setTurn(raw, s.forkTurns[0], 'parent_turn_id', id(s.line[5])),
  },
  {
    name: "a turn's parent made to name nothing",
    foundBy: 'doctor',
    codes: ['TURN_PARENT_MISSING'],
    change: (raw, s) => setTurn(raw, s.line[6], 'parent_turn_id', 'turn_gone'),
  },
  {
    name: 'the checkpointed head rewritten with its hash kept',
    foundBy: 'doctor',
    codes: mismatch,
    change: (raw, s) => setTurn(raw, s.line.at(-1), 'content', text('rewritten, same hash')),
  },
];

for (const { engine, title, skip } of engines()) {
  describe.skipIf(skip)(`tampered turns are found ${title}`, () => {
    let scene: Scene | null = null;
    afterEach(async () => {
      await scene?.opened.cleanup();
      scene = null;
    });

    /** Doctor's error codes and the checkpoint's codes, read by a ledger opened after the change. */
    async function findings(current: Scene): Promise<{ doctor: string[]; checkpoint: string[] }> {
      const reader = current.opened.reopen();
      const doctor = (await reader.doctor()).filter((problem) => problem.severity !== 'warning').map((problem) => problem.code);
      const checkpoint = (await reader.verifyCheckpoint(current.checkpoint)).map((problem) => problem.code);
      return { doctor, checkpoint };
    }

    it('an untouched ledger passes doctor and its checkpoint, and every turn has a hash', async () => {
      scene = await buildScene(engine);
      expect(await findings(scene)).toEqual({ doctor: [], checkpoint: [] });
      const report = await scene.opened.ledger.verifyTurnChains();
      expect(report.turnsChecked).toBe(scene.line.length + scene.forkTurns.length);
      expect(report.sessionsChecked).toBe(2);
      expect(scene.checkpoint.map((mark) => mark.headTurnId).sort()).toEqual(
        [id(scene.line.at(-1)), id(scene.forkTurns.at(-1))].sort(),
      );
    });

    it.each(TAMPERINGS)('$name: found by $foundBy', async ({ foundBy, codes, change }) => {
      scene = await buildScene(engine);
      const raw = await openAttacker(engine, scene.opened.location);
      try {
        await change(raw, scene);
      } finally {
        await raw.close();
      }
      const found = await findings(scene);
      expect(
        found[foundBy].filter((code) => codes.includes(code)),
        JSON.stringify(found),
      ).not.toEqual([]);
    });
  });
}
