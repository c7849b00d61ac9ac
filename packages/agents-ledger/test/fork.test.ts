import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, renderSummaryBlock } from '../src/index.ts';
import {
  appendConversation,
  assistantTurn,
  fullHistory,
  newSession,
  normalIds,
  openTempLedger,
  recordingSummarizer,
  SMALL_SETTINGS,
  sessionHistory,
  type TempLedger,
  twiceCompacted,
  userTurn,
} from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

async function snapshot(ledger: AgentsLedger, sessionId: string) {
  const session = await ledger.getSession(sessionId);
  const history = (await sessionHistory(ledger, sessionId)).map(({ hasChildren: _ignored, ...rest }) => rest);
  const context = session.headTurnId ? await ledger.buildContext(session.headTurnId, { sessionId }) : null;
  return { session, history, context };
}

describe('forkFrom', () => {
  it('forks at a turn a later compaction summarized: the fork sees the context that turn had', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, second, c1, c2, line } = await twiceCompacted(ledger);
    const c2Through = second.indexOf(c2.summarizedThroughTurnId);
    expect(c2Through).toBeGreaterThan(2);
    const forkPoint = second[2] as string;

    const sourceBefore = await ledger.buildContext(forkPoint);
    const fork = await ledger.forkFrom(forkPoint, { label: 'what-if' });
    expect(fork.forkPointSummarizedBy).toBe(c2.id);
    expect(fork.baseCompactionId).toBe(c1.id);
    expect(fork.session).toMatchObject({
      label: 'what-if',
      headTurnId: forkPoint,
      parentSessionId: session.id,
      forkedFromTurnId: forkPoint,
      rebuildFromRaw: false,
      settings: SMALL_SETTINGS,
    });

    // Same context as the turn had in its own session: C1's summary plus raw turns, nothing later.
    const context = await ledger.buildContext(forkPoint, { sessionId: fork.session.id });
    expect(context).toEqual(sourceBefore);
    expect(context.compactionTurnId).toBe(c1.id);
    expect(context.system).toBe(renderSummaryBlock(c1));
    expect(context.system).not.toContain(c2.id);
    const forkDepth = line.indexOf(forkPoint);
    for (const id of context.includedTurnIds) expect(line.indexOf(id)).toBeLessThanOrEqual(forkDepth);

    // Appending on the fork continues from there.
    const next = await ledger.appendTurn(fork.session.id, userTurn('Take the other road.'));
    expect(next.parentTurnId).toBe(forkPoint);
    expect(next.depth).toBe(forkDepth + 1);
    const after = await ledger.buildContext(next.id);
    expect(after.compactionTurnId).toBe(c1.id);
    expect(after.includedTurnIds).toEqual([...sourceBefore.includedTurnIds, next.id]);
    expect((await fullHistory(ledger, next.id)).map((turn) => turn.id)).toEqual([...line.slice(0, forkDepth + 1), next.id]);
  });

  it('forks at a turn before any compaction of its chain: no base compaction, all raw', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { first, c1 } = await twiceCompacted(ledger);
    const forkPoint = first[3] as string;
    const fork = await ledger.forkFrom(forkPoint);
    expect(fork.forkPointSummarizedBy).toBe(c1.id);
    expect(fork.baseCompactionId).toBeNull();
    const context = await ledger.buildContext(forkPoint, { sessionId: fork.session.id });
    expect(context.compactionTurnId).toBeNull();
    expect(context.includedTurnIds).toEqual(first.slice(0, 4));
  });

  it('forks at a turn no compaction has summarized yet', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, c2 } = await twiceCompacted(ledger);
    const tail = await appendConversation(ledger, session.id, 2, 10, 500);
    const fork = await ledger.forkFrom(tail[0] as string);
    expect(fork.forkPointSummarizedBy).toBeNull();
    expect(fork.baseCompactionId).toBe(c2.id);
  });

  it('forks at a compaction turn: that compaction is the base', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { c1, c2 } = await twiceCompacted(ledger);
    const fork = await ledger.forkFrom(c1.id);
    expect(fork.baseCompactionId).toBe(c1.id);
    expect(fork.forkPointSummarizedBy).toBe(c2.id);
    const next = await ledger.appendTurn(fork.session.id, userTurn('From the summary on.'));
    expect((await ledger.buildContext(next.id)).compactionTurnId).toBe(c1.id);
  });

  it('never changes its source: appending and compacting on the fork leaves the source as it was', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { session, second } = await twiceCompacted(ledger);
    const before = await snapshot(ledger, session.id);
    const fork = await ledger.forkFrom(second[5] as string);
    await appendConversation(ledger, fork.session.id, 30, 40, 900);
    await ledger.compact(fork.session.id);
    await appendConversation(ledger, fork.session.id, 3, 10, 950);
    expect(await snapshot(ledger, session.id)).toEqual(before);
  });

  it('lets fork and source grow independently from the fork point', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const base = await appendConversation(ledger, session.id, 4);
    const fork = await ledger.forkFrom(base[3] as string);
    const onSource = await ledger.appendTurn(session.id, userTurn('source goes left'));
    const onFork = await ledger.appendTurn(fork.session.id, userTurn('fork goes right'));
    expect(onSource.parentTurnId).toBe(base[3]);
    expect(onFork.parentTurnId).toBe(base[3]);
    expect(onSource.depth).toBe(onFork.depth);
    expect((await ledger.getTurn(base[3] as string)).hasChildren).toBe(true);
    expect((await sessionHistory(ledger, session.id)).map((turn) => turn.id)).toEqual([...base, onSource.id]);
    expect((await sessionHistory(ledger, fork.session.id)).map((turn) => turn.id)).toEqual([...base, onFork.id]);
    // Each head is compare-and-set on its own session.
    await expect(
      ledger.appendTurn(fork.session.id, { ...assistantTurn('stale'), expectedHeadTurnId: onSource.id }),
    ).rejects.toMatchObject({ code: 'HEAD_CONFLICT', expected: onSource.id, actual: onFork.id });
    const second = await ledger.appendTurn(fork.session.id, { ...assistantTurn('ok'), expectedHeadTurnId: onFork.id });
    expect(second.sessionId).toBe(fork.session.id);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(onSource.id);
  });

  it('forks a fork: history runs through both fork points', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const base = await appendConversation(ledger, session.id, 5);
    const f1 = await ledger.forkFrom(base[2] as string, { label: 'f1' });
    const own1 = await appendConversation(ledger, f1.session.id, 3, 10, 40);
    const f2 = await ledger.forkFrom(own1[1] as string, { label: 'f2' });
    expect(f2.session.parentSessionId).toBe(f1.session.id);
    const own2 = await appendConversation(ledger, f2.session.id, 2, 10, 80);
    const history = await sessionHistory(ledger, f2.session.id);
    expect(history.map((turn) => turn.id)).toEqual([...base.slice(0, 3), ...own1.slice(0, 2), ...own2]);
    expect(history.map((turn) => turn.depth)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(history.map((turn) => turn.sessionId)).toEqual([
      session.id,
      session.id,
      session.id,
      f1.session.id,
      f1.session.id,
      f2.session.id,
      f2.session.id,
    ]);
    const context = await ledger.buildContext(own2.at(-1) as string);
    expect(context.includedTurnIds).toEqual(history.map((turn) => turn.id));

    // A fork at a turn f1 inherited from the source is a fork of the source.
    const f3 = await ledger.forkFrom(base[1] as string);
    expect(f3.session.parentSessionId).toBe(session.id);
  });

  it('shows the branches in tree, with the turns each session wrote itself', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const base = await appendConversation(ledger, session.id, 6);
    const f1 = await ledger.forkFrom(base[2] as string, { label: 'f1' });
    const own1 = await appendConversation(ledger, f1.session.id, 4, 10, 40);
    const f2 = await ledger.forkFrom(base[4] as string, { label: 'f2' });
    const f11 = await ledger.forkFrom(own1[0] as string, { label: 'f1.1' });
    await appendConversation(ledger, f11.session.id, 2, 10, 70);

    const tree = await ledger.tree(session.id);
    expect(tree.session.id).toBe(session.id);
    expect(tree.ownTurns).toBe(6);
    expect(tree.forks.map((fork) => fork.session.label)).toEqual(['f1', 'f2']);
    const [t1, t2] = tree.forks;
    expect(t1?.ownTurns).toBe(4);
    expect(t2?.ownTurns).toBe(0);
    expect(t2?.forks).toEqual([]);
    expect(t1?.forks.map((fork) => [fork.session.label, fork.ownTurns])).toEqual([['f1.1', 2]]);
    expect((await ledger.tree(f1.session.id)).forks.map((fork) => fork.session.id)).toEqual([f11.session.id]);
    expect(f2.session.parentSessionId).toBe(session.id);
  });

  it('inherits the source settings unless told otherwise', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const [turn] = await appendConversation(ledger, session.id, 1);
    const same = await ledger.forkFrom(turn as string);
    expect(same.session.settings).toEqual(SMALL_SETTINGS);
    const bigger = await ledger.forkFrom(turn as string, { settings: { contextWindow: 10_000 } });
    expect(bigger.session.settings).toEqual({ ...SMALL_SETTINGS, contextWindow: 10_000 });
  });
});

describe('full forks', () => {
  it('ignore inherited compactions and rebuild from raw turns', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const { line, c1, c2, second } = await twiceCompacted(ledger);
    const forkPoint = second[8] as string;
    const fork = await ledger.forkFrom(forkPoint, { full: true });
    expect(fork.baseCompactionId).toBeNull();
    expect(fork.forkPointSummarizedBy).toBe(c2.id);
    expect(fork.session.rebuildFromRaw).toBe(true);
    const next = await ledger.appendTurn(fork.session.id, userTurn('Start over with everything.'));
    const context = await ledger.buildContext(next.id);
    expect(context.compactionTurnId).toBeNull();
    expect(context.system).toBe('');
    const rawLine = line.slice(0, line.indexOf(forkPoint) + 1).filter((id) => id !== c1.id);
    expect(context.includedTurnIds).toEqual([...rawLine, next.id]);
    // Seen from the source, the same fork point still uses C1.
    expect((await ledger.buildContext(forkPoint)).compactionTurnId).toBe(c1.id);
    // Usage counts the raw history too.
    const usage = await ledger.contextUsage(fork.session.id);
    let raw = 0;
    for (const id of [...rawLine, next.id]) raw += (await ledger.getTurn(id)).tokenCount;
    expect(usage.contextTokens).toBe(raw);
  });

  it('use their own later compactions, which summarize from the root', async () => {
    const summarizer = recordingSummarizer('Fork summary.');
    temp = openTempLedger({ summarizer });
    const { ledger } = temp;
    const { session, first } = await twiceCompacted(ledger);
    summarizer.inputs.length = 0;
    const sourceHead = (await ledger.getSession(session.id)).headTurnId as string;
    const fork = await ledger.forkFrom(sourceHead, { full: true });
    await appendConversation(ledger, fork.session.id, 4, 20, 700);
    const own = await ledger.compact(fork.session.id);
    expect(summarizer.inputs[0]?.previousSummary).toBeUndefined();
    expect(summarizer.inputs[0]?.turns[0]?.id).toBe(first[0]);

    const next = await ledger.appendTurn(fork.session.id, userTurn('after my own compaction'));
    const context = await ledger.buildContext(next.id);
    expect(context.compactionTurnId).toBe(own.id);
    expect(context.system).toContain('Fork summary.');
    const summarized = normalIds(await ledger.getSummarizedTurns(own.id));
    expect(summarized[0]).toBe(first[0]);
    expect(summarized.at(-1)).toBe(own.summarizedThroughTurnId);
    expect(await ledger.findCompactionThatSummarized(first[0] as string, { sessionId: fork.session.id })).toMatchObject({
      id: own.id,
    });
  });

  // A fork sees what its fork point saw: a fork of a full fork keeps ignoring the compactions the full fork ignored.
  it("a plain fork of a full fork sees the fork point's context as the full fork did", async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    await appendConversation(ledger, session.id, 30, 40);
    const c1 = await ledger.compact(session.id);
    const full = await ledger.forkFrom(c1.id, { full: true });
    const own = await ledger.appendTurn(full.session.id, userTurn('on the full fork'));
    const inFull = await ledger.buildContext(own.id, { sessionId: full.session.id });
    expect(inFull.compactionTurnId).toBeNull();

    const plain = await ledger.forkFrom(own.id);
    const inPlain = await ledger.buildContext(own.id, { sessionId: plain.session.id });
    expect(plain.baseCompactionId).toBe(inFull.compactionTurnId);
    expect(inPlain).toEqual(inFull);
  });
});

describe('getFullHistory with ownTurnsOnly', () => {
  it('gives a fork of a fork only the turns it wrote, in order; without it, the whole line', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger);
    const [, second] = await ledger.appendTurns(session.id, [userTurn('one'), assistantTurn('two'), userTurn('three')]);
    const fork = await ledger.forkFrom((second as { id: string }).id);
    const forkTurns = await ledger.appendTurns(fork.session.id, [userTurn('four'), assistantTurn('five')]);
    const grandchild = await ledger.forkFrom((forkTurns[0] as { id: string }).id);
    const own = await ledger.appendTurns(grandchild.session.id, [assistantTurn('six'), userTurn('seven')]);
    const head = (own.at(-1) as { id: string }).id;
    const whole = await fullHistory(ledger, head);
    expect(whole.map((turn) => turn.sessionId)).toEqual([
      session.id,
      session.id,
      fork.session.id,
      grandchild.session.id,
      grandchild.session.id,
    ]);
    const mine = [];
    for await (const turn of ledger.getFullHistory(head, { ownTurnsOnly: true })) mine.push(turn.id);
    expect(mine).toEqual(own.map((turn) => turn.id));
  });
});
