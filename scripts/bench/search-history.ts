// Builds a long history fast for the search benchmark: one session filled by appendTurns batches of 1,000, a large
// context window so compaction runs every two or three batches (whenever shouldCompact says so), a summarizer that
// copies the lead of each turn instead of ranking sentences, and as many events as turns (appendBatch of 1,000) in the
// same file. Words are planted as the query plan says, and the build checks they landed where the queries expect.

import { type AgentsLedger, createAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import type { SessionSettings } from '../../packages/core/src/index.ts';
import { createEventsLedger, type EventsLedger } from '../../packages/events-ledger/src/index.ts';
import { type LedgerStore, openLedgerStore } from '../../packages/store/src/index.ts';
import { leadTextSummarizer } from './lead-text-summarizer.ts';
import { nowMilliseconds } from './measure.ts';
import { reportProgress } from './progress.ts';
import { eventWithWord, planQueries, type QueryPlan, threeWordsOf, withWord } from './search-queries.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';
import { createEventGenerator } from './synthetic-events.ts';

export const SEARCH_BATCH = 1000;
/** About 85k tokens per batch of turns: shouldCompact says yes every two or three batches. */
export const SEARCH_SESSION_SETTINGS: SessionSettings = {
  contextWindow: 200_000,
  reserveTokens: 8_000,
  keepRecentTokens: 16_000,
};
/** How the history was built, for the names of the results. */
export const SEARCH_HISTORY_DESCRIPTION =
  `turns by appendTurns ×${SEARCH_BATCH}, compact when shouldCompact (${SEARCH_SESSION_SETTINGS.contextWindow / 1000}k window), ` +
  'lead-text summaries';

export interface SearchHistory {
  /** The store both ledgers share (the benchmark reads it directly to check what it planted). */
  store: LedgerStore;
  ledger: AgentsLedger;
  events: EventsLedger;
  path: string;
  size: number;
  plan: QueryPlan;
  /** Three words of each phrase turn, taken before anything was planted. */
  phrases: string[];
  compactions: number;
  /** Normal turns after the newest compaction's cut: what the resolved view reports as themselves. */
  unsummarizedTurns: number;
  turnsMilliseconds: number;
  /** Part of turnsMilliseconds: shouldCompact and compact. */
  compactionMilliseconds: number;
  eventsMilliseconds: number;
  /** The database's size (SQLite: page_count × page_size; PostgreSQL: pg_database_size) before anything was written, after the turns, and after the events. */
  fileBytes: { empty: number; afterTurns: number; afterEvents: number };
}

export interface BuildSearchHistoryOptions {
  /** A SQLite file path or a postgres:// URL of an empty database. */
  path: string;
  /** The database's size on disk, read through a connection of its own (storage is the engine's business). */
  bytesOf: (path: string) => Promise<number>;
  size: number;
  seed: number;
  quiet?: boolean;
}

export async function buildSearchHistory(options: BuildSearchHistoryOptions): Promise<SearchHistory> {
  const { size } = options;
  const store = openLedgerStore(options.path);
  const ledger = createAgentsLedger({ store, summarizer: leadTextSummarizer });
  const events = createEventsLedger({ store });
  try {
    const plan = planQueries(size, options.seed);
    // The store opens on first use (its engine is loaded then): make it, migrations and all, before
    // measuring the empty file.
    await ledger.listSessions({ limit: 1, offset: 0 });
    const empty = await options.bytesOf(options.path);
    const session = await ledger.createSession({ label: `search-bench-${size}`, settings: SEARCH_SESSION_SETTINGS });
    const conversation = createConversationGenerator(options.seed);
    const phrases: string[] = [];
    let compactions = 0;
    let compactionMilliseconds = 0;
    const progressStep = Math.max(SEARCH_BATCH, Math.floor(size / 10 / SEARCH_BATCH) * SEARCH_BATCH);
    const progress = (what: string, done: number, start: number) => {
      if (!options.quiet && (done % progressStep === 0 || done === size)) {
        reportProgress(
          `  ${what} ${done.toLocaleString('en-US')}/${size.toLocaleString('en-US')}, ` +
            `${((nowMilliseconds() - start) / 1000).toFixed(1)} s`,
        );
      }
    };
    const turnsStart = nowMilliseconds();
    for (let appended = 0; appended < size; ) {
      const batch = conversation.nextTurns(Math.min(SEARCH_BATCH, size - appended)).map((turn, offset) => {
        const index = appended + offset;
        if (plan.phraseTurns.has(index)) {
          const phrase = threeWordsOf(plan.random, turn);
          if (phrase) phrases.push(phrase);
        }
        const word = plan.turnWords.get(index);
        return word ? withWord(turn, word) : turn;
      });
      await ledger.appendTurns(session.id, batch);
      appended += batch.length;
      const compactStart = nowMilliseconds();
      if (await ledger.shouldCompact(session.id)) {
        await ledger.compact(session.id, { trigger: 'threshold' });
        compactions += 1;
      }
      compactionMilliseconds += nowMilliseconds() - compactStart;
      progress(`turns (${compactions} compactions)`, appended, turnsStart);
    }
    const turnsMilliseconds = nowMilliseconds() - turnsStart;
    const afterTurns = await options.bytesOf(options.path);
    const generator = createEventGenerator(options.seed + 1);
    const eventsStart = nowMilliseconds();
    for (let appended = 0; appended < size; ) {
      const batch = generator.nextEvents(Math.min(SEARCH_BATCH, size - appended)).map((event, offset) => {
        const word = plan.eventWords.get(appended + offset);
        return word ? eventWithWord(event, word) : event;
      });
      await events.appendBatch(batch);
      appended += batch.length;
      progress('events', appended, eventsStart);
    }
    const eventsMilliseconds = nowMilliseconds() - eventsStart;
    const history: SearchHistory = {
      store,
      ledger,
      events,
      path: options.path,
      size,
      plan,
      phrases,
      compactions,
      unsummarizedTurns: await countUnsummarized(store, session.id),
      turnsMilliseconds,
      compactionMilliseconds,
      eventsMilliseconds,
      fileBytes: { empty, afterTurns, afterEvents: await options.bytesOf(options.path) },
    };
    await checkPlanted(history, session.id);
    return history;
  } catch (error) {
    await ledger.close();
    throw error;
  }
}

/** The depth the session's newest compaction summarized through (each folds the ones before it); -1 for none. */
async function summarizedThrough(store: LedgerStore, sessionId: string): Promise<{ depth: number; headDepth: number }> {
  const session = await store.getSession(sessionId);
  const head = session?.headTurnId ? await store.getTurn(session.headTurnId) : undefined;
  if (!head) return { depth: -1, headDepth: -1 };
  const compaction = head.latestCompactionId ? await store.getTurn(head.latestCompactionId) : undefined;
  return { depth: compaction?.summarizedThroughDepth ?? -1, headDepth: head.depth };
}

async function countUnsummarized(store: LedgerStore, sessionId: string): Promise<number> {
  const { depth, headDepth } = await summarizedThrough(store, sessionId);
  let count = 0;
  for (let from = depth + 1; from <= headDepth; from += 1000) {
    const page = await store.chainPage({ sessionId, fromDepth: from, toDepth: Math.min(headDepth, from + 999) });
    count += page.filter((turn) => turn.turnType === 'normal').length;
  }
  return count;
}

/** Each rare identifier matches one turn and one event; the summarized-only words match only summarized turns. */
async function checkPlanted(history: SearchHistory, sessionId: string): Promise<void> {
  const { store } = history;
  for (const identifier of history.plan.queries['rare identifier']) {
    const match = { words: [identifier], mode: 'any' as const };
    const turns = await store.countTurnMatches(match);
    const events = (await store.searchEvents({ match, limit: 2 })).hits.length;
    if (turns !== 1 || events !== 1) {
      throw new Error(`search benchmark: ${identifier} should match exactly one turn and one event`);
    }
  }
  const { depth: through } = await summarizedThrough(history.store, sessionId);
  for (const word of history.plan.queries['word only in summarized turns']) {
    let deepest = -1;
    let cursor: string | undefined;
    do {
      const page = await store.searchTurns({
        match: { words: [word], mode: 'any' },
        view: 'raw',
        filters: { turnType: 'normal' },
        limit: 200,
        cursor,
        snippets: false,
      });
      for (const hit of page.hits) deepest = Math.max(deepest, hit.depth);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (deepest > through) {
      throw new Error(`search benchmark: "${word}" is in a turn no compaction has summarized`);
    }
  }
  if (history.phrases.length === 0) throw new Error('search benchmark: no 3-word query could be taken from the history');
}
