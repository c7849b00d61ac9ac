// The contract every compaction strategy keeps, run against each one by its own test file: what the
// compaction turn records, how history, contexts, forks and search read it, and that a failed
// summarizer writes nothing. A strategy may summarize however it likes; readers must not notice.
// It takes a factory, not a built-in name, so a strategy from outside the ledger runs it as the
// built-in ones do (outside-strategy.contract.test.ts).

import { type CompactionTurn, contentText, type NormalTurn, SummarizerError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentsLedger, type AppendTurnInput, type CompactionStrategy, renderSummaryBlock } from '../src/index.ts';
import {
  apiShapeProblems,
  contextOrNeeded,
  countRows,
  fullHistory,
  normalIds,
  openTempLedger,
  recomputeTokens,
  SMALL_SETTINGS,
  sessionHistory,
  type TempLedger,
  userTurn,
} from './builders.ts';
import {
  countingSummarizer,
  forestRows,
  metadataOf,
  roundRobinPlan,
  TOPIC_NAMES,
  type TopicName,
  topicText,
  topicToolExchange,
  topicTurns,
} from './topic-builders.ts';

export interface StrategyUnderTest {
  /** Makes the strategy; called once per ledger the contract opens (a strategy may keep caches). */
  create: () => CompactionStrategy;
  /** Summarizer calls one compaction makes when it is fixed (flat: 1); unchecked when absent. */
  summarizerCallsPerCompaction?: number;
}

/** A word only the first turn holds (it will be summarized) and one only the last holds (kept raw). */
const SUMMARIZED_WORD = 'zebrafish';
const KEPT_WORD = 'okapi';

/**
 * 36 topic turns with a tool exchange after every fourth, the first turn carrying SUMMARIZED_WORD and
 * the last KEPT_WORD: 54 turns, well over SMALL_SETTINGS' limit.
 */
function contractInputs(): AppendTurnInput[] {
  const plan = roundRobinPlan(6);
  const inputs: AppendTurnInput[] = [];
  topicTurns(plan).forEach((input, index) => {
    const topic = plan[index] as TopicName;
    const first = index === 0;
    const last = index === plan.length - 1;
    inputs.push(first || last ? { ...input, content: topicText(topic, index, first ? SUMMARIZED_WORD : KEPT_WORD) } : input);
    if (index % 4 === 3) inputs.push(...topicToolExchange(topic, `toolu_${index}`, index));
  });
  return inputs;
}

/** More of the same conversation, for later compactions. */
function laterInputs(round: number, count = 18): AppendTurnInput[] {
  const topics = TOPIC_NAMES.slice(round % TOPIC_NAMES.length).concat(TOPIC_NAMES.slice(0, round % TOPIC_NAMES.length));
  const inputs = topicTurns(roundRobinPlan(Math.ceil(count / 6), 2, topics).slice(0, count), 100 * round);
  inputs.push(...topicToolExchange(topics[0] as TopicName, `toolu_later_${round}`, round));
  return inputs;
}

export function runStrategyContract(underTest: StrategyUnderTest): void {
  let temp: TempLedger;
  let strategy: CompactionStrategy;
  const strategyName = underTest.create().name;
  afterEach(() => temp?.cleanup());

  async function compactedSession(options: Parameters<typeof openTempLedger>[0] = {}) {
    strategy = underTest.create();
    temp = openTempLedger({ ...options, strategies: [strategy] });
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: strategyName });
    const turns = await ledger.appendTurns(session.id, contractInputs());
    const ids = turns.map((turn) => turn.id);
    const usage = await ledger.contextUsage(session.id);
    expect(usage.shouldCompact).toBe(true);
    const compaction = await ledger.compact(session.id, { trigger: 'threshold' });
    return { ledger, session, turns, ids, usage, compaction };
  }

  /** Appends and compacts until `count` compactions of the session have been written. */
  async function compactRepeatedly(ledger: AgentsLedger, sessionId: string, count: number): Promise<CompactionTurn[]> {
    const written: CompactionTurn[] = [];
    for (let round = 1; written.length < count; round += 1) {
      if (round > 10) throw new Error(`only ${written.length} compactions after 10 rounds`);
      await ledger.appendTurns(sessionId, laterInputs(round));
      if (await ledger.shouldCompact(sessionId)) written.push(await ledger.compact(sessionId, { trigger: 'threshold' }));
    }
    return written;
  }

  describe(`${strategyName} strategy contract`, () => {
    it('writes a compaction turn naming the strategy, with an adjacent cut and the tokens it costs', async () => {
      const { ledger, session, turns, ids, usage, compaction } = await compactedSession();
      expect(compaction.strategy).toBe(strategyName);
      expect(compaction.trigger).toBe('threshold');
      expect(compaction.parentTurnId).toBe(ids.at(-1));
      expect((await ledger.getSession(session.id)).headTurnId).toBe(compaction.id);

      const through = ids.indexOf(compaction.summarizedThroughTurnId);
      expect(through).toBeGreaterThan(0);
      expect(compaction.firstKeptTurnId).toBe(ids[through + 1]);
      // The cut falls between tool exchanges, never inside one.
      const summarizedUses = new Set(turns.slice(0, through + 1).flatMap((turn) => toolIds(turn, 'tool_use')));
      for (const turn of turns.slice(through + 1)) {
        for (const id of toolIds(turn, 'tool_result')) expect(summarizedUses.has(id), id).toBe(false);
      }

      expect(compaction.tokensBefore).toBe(usage.contextTokens);
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
      expect(compaction.tokenCount).toBe(ledger.tokenCounter.countText(renderSummaryBlock(compaction, strategy)));
      const kept = turns.slice(through + 1).reduce((total, turn) => total + turn.tokenCount, 0);
      expect(compaction.tokensAfter).toBe(compaction.tokenCount + kept);
      expect((await ledger.contextUsage(session.id)).contextTokens).toBe(compaction.tokensAfter);
    });

    it('records compacts, sourceTokens, compactionPercent and summarizerCalls', async () => {
      const { ledger, turns, ids, compaction } = await compactedSession();
      const summarized = turns.slice(0, ids.indexOf(compaction.summarizedThroughTurnId) + 1);
      const metadata = metadataOf(compaction);
      // A first compaction stands for exactly the turns before its cut.
      expect(metadata.compacts).toBe(summarized.length);
      expect(metadata.sourceTokens).toBe(summarized.reduce((total, turn) => total + turn.tokenCount, 0));
      const summaryTokens = ledger.tokenCounter.countText(compaction.summary);
      expect(metadata.compactionPercent).toBe(
        Math.max(0, Math.round(100 * (1 - summaryTokens / (metadata.sourceTokens as number)))),
      );
      expect(metadata.compactionPercent).toBeGreaterThan(0);
      expect(Number.isInteger(metadata.summarizerCalls)).toBe(true);
      expect(metadata.summarizerCalls).toBeGreaterThanOrEqual(1);
      if (underTest.summarizerCallsPerCompaction !== undefined)
        expect(metadata.summarizerCalls).toBe(underTest.summarizerCallsPerCompaction);
      expect(metadata.windowTurns).toBe(turns.length);
    });

    it('getFullHistory returns every turn once, in order, the compaction included', async () => {
      const { ledger, session, ids, compaction } = await compactedSession();
      const more = await ledger.appendTurns(session.id, laterInputs(1, 4));
      const head = more.at(-1) as NormalTurn;
      const history = await fullHistory(ledger, head.id);
      expect(history.map((turn) => turn.id)).toEqual([...ids, compaction.id, ...more.map((turn) => turn.id)]);
      history.forEach((turn, depth) => {
        expect(turn.depth).toBe(depth);
        expect(turn.parentTurnId).toBe(depth === 0 ? null : history[depth - 1]?.id);
      });
    });

    it('buildContext stays within any budget and never separates a tool_use from its tool_result', async () => {
      const { ledger, session, compaction } = await compactedSession();
      await ledger.appendTurns(session.id, laterInputs(1, 6));
      const head = (await ledger.getSession(session.id)).headTurnId as string;
      const whole = await ledger.buildContext(head);
      expect(whole.compactionTurnId).toBe(compaction.id);
      expect(whole.includedTurnIds[0]).toBe(compaction.firstKeptTurnId);
      expect(whole.droppedTurnIds).toEqual([]);
      expect(apiShapeProblems(whole.messages)).toEqual([]);
      // The smallest valid context: the newest user turn (and the call it answers), refused below it.
      const smallest = await contextOrNeeded(ledger, head, { budgetTokens: 0 });
      if (!('needs' in smallest)) throw new Error('a budget of 0 holds no valid context');
      const newestUser = (await ledger.buildContext(head, { budgetTokens: smallest.needs })).includedTurnIds;
      let trimmed = 0;
      let refused = 0;
      for (let budget = 0; budget <= whole.tokens + 20; budget += 37) {
        for (const options of [{}, { query: 'postgres vacuum' }, { systemPrompt: 'Be brief.' }]) {
          const context = await contextOrNeeded(ledger, head, { ...options, budgetTokens: budget });
          if ('needs' in context) {
            expect(context.needs, `budget ${budget}`).toBe(smallest.needs);
            expect(budget).toBeLessThan(smallest.needs);
            refused += 1;
            continue;
          }
          expect(context.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
          expect(context.tokens).toBe(recomputeTokens(ledger, context));
          expect(context.messages[0]?.role).toBe('user');
          expect(apiShapeProblems(context.messages), `budget ${budget}`).toEqual([]);
          // The newest turns stay, the oldest go; or, when nothing else fits, the newest user turn alone.
          const newest = whole.includedTurnIds.slice(whole.includedTurnIds.length - context.includedTurnIds.length);
          if (context.includedTurnIds.length > 0 && newest.join() !== context.includedTurnIds.join())
            expect(context.includedTurnIds).toEqual(newestUser);
          else expect(newest).toEqual(context.includedTurnIds);
          if (context.droppedTurnIds.length > 0) trimmed += 1;
        }
      }
      expect(trimmed).toBeGreaterThan(3);
      expect(refused).toBeGreaterThan(0);
    });

    it('getSummarizedTurns covers the summarized turns, and the previous compaction once there is one', async () => {
      const { ledger, session, ids, compaction } = await compactedSession();
      const through = ids.indexOf(compaction.summarizedThroughTurnId);
      expect(normalIds(await ledger.getSummarizedTurns(compaction.id))).toEqual(ids.slice(0, through + 1));

      const [second] = await compactRepeatedly(ledger, session.id, 1);
      if (!second) throw new Error('no second compaction');
      const line = (await sessionHistory(ledger, session.id)).map((turn) => turn.id);
      const covered = (await ledger.getSummarizedTurns(second.id)).map((turn) => turn.id);
      const from = line.indexOf(compaction.firstKeptTurnId as string);
      const to = line.indexOf(second.summarizedThroughTurnId);
      expect(covered).toEqual(line.slice(from, to + 1));
      expect(covered).toContain(compaction.id);
    });

    it('a fork at a summarized turn sees the context that turn had; a fork at the head, the compacted one', async () => {
      const { ledger, session, ids, compaction } = await compactedSession();
      const summarizedPoint = ids[5] as string;
      const before = await ledger.buildContext(summarizedPoint);
      expect(before.compactionTurnId).toBeNull();
      const early = await ledger.forkFrom(summarizedPoint);
      expect(early.forkPointSummarizedBy).toBe(compaction.id);
      expect(early.baseCompactionId).toBeNull();
      expect(await ledger.buildContext(summarizedPoint, { sessionId: early.session.id })).toEqual(before);
      const onEarly = await ledger.appendTurn(early.session.id, userTurn('Take the other road.'));
      const earlyContext = await ledger.buildContext(onEarly.id);
      expect(earlyContext.compactionTurnId).toBeNull();
      expect(earlyContext.includedTurnIds).toEqual([...ids.slice(0, 6), onEarly.id]);
      expect(await ledger.topics(early.session.id)).toEqual([]);

      const atHead = await ledger.forkFrom(compaction.id);
      expect(atHead.baseCompactionId).toBe(compaction.id);
      const sourceContext = await ledger.buildContext(compaction.id);
      expect(await ledger.buildContext(compaction.id, { sessionId: atHead.session.id })).toEqual(sourceContext);
      const onHead = await ledger.appendTurn(atHead.session.id, userTurn(topicText('backups', 3)));
      const headContext = await ledger.buildContext(onHead.id);
      expect(headContext.compactionTurnId).toBe(compaction.id);
      expect(headContext.system).toBe(sourceContext.system);
      expect(headContext.includedTurnIds).toEqual([...sourceContext.includedTurnIds, onHead.id]);
      // The source saw none of it.
      expect((await ledger.getSession(session.id)).headTurnId).toBe(compaction.id);
      expect(await ledger.topics(atHead.session.id)).toEqual(await ledger.topics(session.id));
    });

    it('search finds the words of summarized turns and resolves them to the compaction', async () => {
      const { ledger, turns, ids, compaction } = await compactedSession();
      const resolved = await ledger.search(SUMMARIZED_WORD);
      expect(resolved.hits).toHaveLength(1);
      expect(resolved.hits[0]).toMatchObject({ turnId: compaction.id, turnType: 'compaction', via: ids[0] });
      const raw = await ledger.search(SUMMARIZED_WORD, { view: 'raw' });
      // The raw view finds the turn itself (and the summary, if it kept the sentence).
      expect(raw.hits.map((hit) => hit.turnId)).toContain(ids[0]);
      for (const hit of raw.hits) expect([ids[0], compaction.id]).toContain(hit.turnId);
      // A word of a kept turn is found as that turn.
      const keptTurn = turns.find((turn) => contentText(turn.content).includes(KEPT_WORD)) as NormalTurn;
      expect(ids.indexOf(keptTurn.id)).toBeGreaterThan(ids.indexOf(compaction.summarizedThroughTurnId));
      const kept = await ledger.search(KEPT_WORD);
      expect(kept.hits.map((hit) => [hit.turnId, hit.via])).toEqual([[keptTurn.id, null]]);
    });

    it('a failing summarizer makes compact throw SummarizerError and writes nothing', async () => {
      const summarizer = countingSummarizer();
      const { ledger, session, compaction } = await compactedSession({ summarizer });
      await ledger.appendTurns(session.id, laterInputs(1));
      await ledger.appendTurns(session.id, laterInputs(2));
      expect(await ledger.shouldCompact(session.id)).toBe(true);
      const before = await state(ledger, session.id);

      summarizer.failWhen = () => true;
      summarizer.reset();
      const error = await ledger.compact(session.id).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(SummarizerError);
      expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED' });
      expect(summarizer.calls.length).toBeGreaterThanOrEqual(1);
      expect(await state(ledger, session.id)).toEqual(before);
      expect(await ledger.doctor()).toEqual([]);

      // With the summarizer back, the next compaction builds on the last one that was written.
      summarizer.failWhen = undefined;
      const next = await ledger.compact(session.id);
      expect((await ledger.getSummarizedTurns(next.id)).map((turn) => turn.id)).toContain(compaction.id);
      expect(await ledger.doctor()).toEqual([]);
    });

    it('doctor finds nothing after several compactions, on the session and on a fork that compacts', async () => {
      const { ledger, session, ids } = await compactedSession();
      const compactions = await compactRepeatedly(ledger, session.id, 3);
      expect(compactions.every((compaction) => compaction.strategy === strategyName)).toBe(true);
      const fork = await ledger.forkFrom(ids.at(-1) as string);
      await compactRepeatedly(ledger, fork.session.id, 1);
      expect(await ledger.doctor()).toEqual([]);
    });
  });
}

function toolIds(turn: NormalTurn, type: 'tool_use' | 'tool_result'): string[] {
  return turn.content.flatMap((block) =>
    block.type === type ? [block.type === 'tool_use' ? block.id : (block as { tool_use_id: string }).tool_use_id] : [],
  );
}

/** Everything a compaction could write: the session, its history, row counts and the forest rows. */
async function state(ledger: AgentsLedger, sessionId: string) {
  return {
    session: await ledger.getSession(sessionId),
    history: await sessionHistory(ledger, sessionId),
    turns: countRows(ledger, 'agent_turns'),
    forest: forestRows(ledger),
    topics: await ledger.topics(sessionId),
  };
}
