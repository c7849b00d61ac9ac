import { afterEach, describe, expect, it } from 'vitest';
import {
  appendConversation,
  fullHistory,
  newSession,
  normalIds,
  openTempLedger,
  recordingSummarizer,
  sessionHistory,
  type TempLedger,
  twiceCompacted,
  userTurn,
} from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('getFullHistory', () => {
  it('streams every turn oldest first, compactions included, with contiguous depths and parent links', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, line, c1, c2 } = await twiceCompacted(ledger, 3);
    const history = await sessionHistory(ledger, session.id);
    expect(history.map((turn) => turn.id)).toEqual(line);
    history.forEach((turn, depth) => {
      expect(turn.depth).toBe(depth);
      expect(turn.parentTurnId).toBe(depth === 0 ? null : line[depth - 1]);
      expect(turn.hasChildren).toBe(depth < line.length - 1);
    });
    expect(history.filter((turn) => turn.turnType === 'compaction').map((turn) => turn.id)).toEqual([c1.id, c2.id]);
    // The entries are the same turns getTurn returns.
    for (const turn of history.slice(28, 33)) expect(await ledger.getTurn(turn.id)).toEqual(turn);
  });

  it('stops at the turn asked for', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { line } = await twiceCompacted(ledger, 3);
    expect((await fullHistory(ledger, line[12] as string)).map((turn) => turn.id)).toEqual(line.slice(0, 13));
    expect((await fullHistory(ledger, line[0] as string)).map((turn) => turn.id)).toEqual(line.slice(0, 1));
  });

  it('crosses page boundaries without losing or repeating a turn', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 100_000, reserveTokens: 1000, keepRecentTokens: 1000 });
    const ids = await appendConversation(ledger, session.id, 1203, 3);
    const history = await fullHistory(ledger, ids.at(-1) as string);
    expect(history.map((turn) => turn.id)).toEqual(ids);
    const middle = await fullHistory(ledger, ids[999] as string);
    expect(middle.map((turn) => turn.id)).toEqual(ids.slice(0, 1000));
  });

  it('runs through the source for a fork, then the fork own turns', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { line } = await twiceCompacted(ledger, 3);
    const fork = await ledger.forkFrom(line[40] as string);
    const own = await appendConversation(ledger, fork.session.id, 2, 10, 300);
    expect((await sessionHistory(ledger, fork.session.id)).map((turn) => turn.id)).toEqual([...line.slice(0, 41), ...own]);
  });
});

describe('getSummarizedTurns', () => {
  it('returns the raw turns the first compaction summarized, from the root', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { first, c1 } = await twiceCompacted(ledger, 3);
    const summarized = await ledger.getSummarizedTurns(c1.id);
    const through = first.indexOf(c1.summarizedThroughTurnId);
    expect(summarized.map((turn) => turn.id)).toEqual(first.slice(0, through + 1));
    expect(summarized.every((turn) => turn.turnType === 'normal')).toBe(true);
  });

  it('returns the previous compaction, its kept turns and the later turns through the cut, in chain order', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { line, c1, c2 } = await twiceCompacted(ledger, 3);
    const summarized = await ledger.getSummarizedTurns(c2.id);
    const from = line.indexOf(c1.firstKeptTurnId as string);
    const through = line.indexOf(c2.summarizedThroughTurnId);
    expect(from).toBeLessThan(line.indexOf(c1.id));
    expect(summarized.map((turn) => turn.id)).toEqual(line.slice(from, through + 1));
    expect(summarized.filter((turn) => turn.turnType === 'compaction').map((turn) => turn.id)).toEqual([c1.id]);
    // Together the two compactions cover every normal turn through C2's cut exactly once.
    const covered = [...normalIds(await ledger.getSummarizedTurns(c1.id)), ...normalIds(summarized)];
    expect(covered).toEqual(normalIds((await fullHistory(ledger, c2.summarizedThroughTurnId)).slice()));
  });

  it('includes the previous compaction when it kept no raw turn', async () => {
    temp = openTempLedger({ summarizer: recordingSummarizer() });
    const { ledger } = temp;
    const session = await newSession(ledger, { contextWindow: 5000, reserveTokens: 500, keepRecentTokens: 10 });
    await appendConversation(ledger, session.id, 6, 40);
    const c1 = await ledger.compact(session.id);
    expect(c1.firstKeptTurnId).toBeNull();
    const after = await appendConversation(ledger, session.id, 6, 40, 50);
    const c2 = await ledger.compact(session.id);
    const summarized = await ledger.getSummarizedTurns(c2.id);
    expect(summarized[0]?.id).toBe(c1.id);
    expect(normalIds(summarized)).toEqual(after.slice(0, after.indexOf(c2.summarizedThroughTurnId) + 1));
  });

  it('rejects a normal turn id', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { first } = await twiceCompacted(ledger, 3);
    await expect(ledger.getSummarizedTurns(first[0] as string)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('findLatestCompaction and findCompactionThatSummarized', () => {
  it('finds the newest compaction at or above a turn', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { first, second, third, c1, c2 } = await twiceCompacted(ledger, 3);
    expect(await ledger.findLatestCompaction(first[29] as string)).toBeNull();
    expect((await ledger.findLatestCompaction(c1.id))?.id).toBe(c1.id);
    expect((await ledger.findLatestCompaction(second[0] as string))?.id).toBe(c1.id);
    expect((await ledger.findLatestCompaction(c2.id))?.id).toBe(c2.id);
    expect(await ledger.findLatestCompaction(third[2] as string)).toEqual({ ...c2, hasChildren: true });
  });

  it('finds the compaction whose summary stands in for a turn, or null while the turn is still raw', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { line, c1, c2, third } = await twiceCompacted(ledger, 3);
    const c1Through = line.indexOf(c1.summarizedThroughTurnId);
    const c2Through = line.indexOf(c2.summarizedThroughTurnId);
    for (const [depth, id] of line.entries()) {
      const found = await ledger.findCompactionThatSummarized(id);
      if (id === c1.id) expect(found?.id).toBe(c2.id);
      else if (id === c2.id) expect(found).toBeNull();
      else if (depth <= c1Through) expect(found?.id, id).toBe(c1.id);
      else if (depth <= c2Through) expect(found?.id, id).toBe(c2.id);
      else expect(found, id).toBeNull();
    }
    expect(await ledger.findCompactionThatSummarized(third[0] as string)).toBeNull();
  });

  it('answers as a fork sees it: a turn its source kept raw can be summarized by the fork', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const ids = await appendConversation(ledger, session.id, 30, 40);
    const c1 = await ledger.compact(session.id);
    const keptRaw = c1.firstKeptTurnId as string;
    const fork = await ledger.forkFrom(c1.id);
    await appendConversation(ledger, fork.session.id, 30, 40, 400);
    const own = await ledger.compact(fork.session.id);
    expect(await ledger.findCompactionThatSummarized(keptRaw)).toBeNull();
    expect((await ledger.findCompactionThatSummarized(keptRaw, { sessionId: fork.session.id }))?.id).toBe(own.id);
    expect((await ledger.findCompactionThatSummarized(ids[0] as string, { sessionId: fork.session.id }))?.id).toBe(c1.id);
    expect((await ledger.findCompactionThatSummarized(c1.id, { sessionId: fork.session.id }))?.id).toBe(own.id);
    expect(await ledger.findCompactionThatSummarized(c1.id)).toBeNull();
    // A turn not on the viewing session's line has no compaction there.
    const ownTurn = own.summarizedThroughTurnId;
    expect(await ledger.findCompactionThatSummarized(ownTurn, { sessionId: session.id })).toBeNull();
  });

  it('returns null for a session with no turns', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const [turn] = await appendConversation(ledger, session.id, 1);
    const empty = await newSession(ledger);
    expect(await ledger.findCompactionThatSummarized(turn as string, { sessionId: empty.id })).toBeNull();
    const next = await ledger.appendTurn(session.id, userTurn('x'));
    expect(next.depth).toBe(1);
  });
});
