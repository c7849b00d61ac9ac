// buildContext at the session head, with and without a token budget, and the hybrid context (a query, retrieval on), as operations to time for one
// history size; and the union-find context in a cold process (a freshly opened ledger per sample, so
// no forest or cache survives from one sample to the next), with a query and within a budget that
// fits the topics line by line, on a union-find session of the same size built beside the history.

import { type AgentsLedger, openAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { contentText } from '../../packages/core/src/index.ts';
import { BENCH_SESSION_SETTINGS, BUILD_BATCH_TURNS, type BuiltHistory } from './build-history.ts';
import { leadTextSummarizer } from './lead-text-summarizer.ts';
import type { TimedOperation } from './measure.ts';
import { reportProgress } from './progress.ts';
import { isPostgresUrl } from './raw-pg-databases.ts';
import { createConversationGenerator } from './synthetic-conversation.ts';

export const CONTEXT_BUDGET_TOKENS = 4000;

export const CONTEXT_AT_HEAD = 'buildContext at head';
export const CONTEXT_AT_HEAD_BUDGETED = `buildContext at head, budget ${CONTEXT_BUDGET_TOKENS}`;
export const HYBRID_CONTEXT_AT_HEAD = `hybrid context at head, budget ${CONTEXT_BUDGET_TOKENS}`;
/** The hybrid context's query: a message as a runtime would pass it, with words the history holds rarely and often. */
export const HYBRID_QUERY = 'Why did the billing worker hit OOMKilled after the max_connections change in config/redis.conf?';
export const UNION_FIND_CONTEXT_COLD = 'union-find buildContext with query, cold';
/** Below what the forest keeps written (twice the summary budget), so topics are fitted line by line. */
export const UNION_FIND_FITTED_BUDGET_TOKENS = 2000;
export const UNION_FIND_CONTEXT_FITTED_COLD = `union-find buildContext, budget ${UNION_FIND_FITTED_BUDGET_TOKENS} (topics fitted), cold`;

/** Seed of the union-find session's conversation (the flat history's seed plays no part). */
const UNION_FIND_SEED = 20260214;

export function buildContextOperations(history: BuiltHistory): TimedOperation[] {
  const { ledger, headTurnId, turns: size } = history;
  return [
    { name: CONTEXT_AT_HEAD, size, run: () => ledger.buildContext(headTurnId) },
    { name: CONTEXT_AT_HEAD_BUDGETED, size, run: () => ledger.buildContext(headTurnId, { budgetTokens: CONTEXT_BUDGET_TOKENS }) },
    {
      name: HYBRID_CONTEXT_AT_HEAD,
      size,
      run: () => ledger.buildContext(headTurnId, { budgetTokens: CONTEXT_BUDGET_TOKENS, query: HYBRID_QUERY, retrieval: true }),
    },
    ...unionFindColdContextOperations(history),
  ];
}

/**
 * Each call opens the union-find ledger afresh, builds the context at its head, and closes it: what a
 * runtime pays for its first turn after a restart. With the next message as the query; and within a
 * budget smaller than what the topics hold, so every context fits them line by line with no cached
 * line values (topics/fit-topics.ts). The session is built on the first call of either (a warm-up
 * call, never a timed one).
 */
function unionFindColdContextOperations(history: BuiltHistory): TimedOperation[] {
  // SQLite: a file of its own; PostgreSQL: a second session in the history's database.
  const path = isPostgresUrl(history.path) ? history.path : `${history.path}.union-find.sqlite`;
  let built: Promise<{ headTurnId: string; query: string }> | null = null;
  const cold =
    (build: (ledger: AgentsLedger, session: { headTurnId: string; query: string }) => Promise<unknown>) => async () => {
      built ??= buildUnionFindSession(path, history.turns);
      const session = await built;
      const ledger = openAgentsLedger(path, { summarizer: leadTextSummarizer });
      try {
        return await build(ledger, session);
      } finally {
        await ledger.close();
      }
    };
  return [
    {
      name: UNION_FIND_CONTEXT_COLD,
      size: history.turns,
      run: cold((ledger, session) => ledger.buildContext(session.headTurnId, { query: session.query })),
    },
    {
      name: UNION_FIND_CONTEXT_FITTED_COLD,
      size: history.turns,
      run: cold((ledger, session) => ledger.buildContext(session.headTurnId, { budgetTokens: UNION_FIND_FITTED_BUDGET_TOKENS })),
    },
  ];
}

/** A union-find session of `turns` synthetic turns, compacting whenever the ledger asks to, as build-history does. */
async function buildUnionFindSession(path: string, turns: number): Promise<{ headTurnId: string; query: string }> {
  reportProgress(`  building a union-find session of ${turns.toLocaleString('en-US')} turns (for the cold context rows)`);
  const ledger: AgentsLedger = openAgentsLedger(path, { summarizer: leadTextSummarizer });
  try {
    const created = await ledger.createSession({
      label: `bench-union-find-${turns}`,
      settings: BENCH_SESSION_SETTINGS,
      strategy: 'union-find',
    });
    const conversation = createConversationGenerator(UNION_FIND_SEED);
    let appended = 0;
    while (appended < turns) {
      const written = await ledger.appendTurns(created.id, conversation.nextTurns(Math.min(BUILD_BATCH_TURNS, turns - appended)));
      appended += written.length;
      if (await ledger.shouldCompact(created.id)) {
        try {
          await ledger.compact(created.id, { trigger: 'threshold' });
        } catch {
          // A refused compaction writes nothing; a runtime carries on.
        }
      }
    }
    const next = conversation.nextTurn();
    const query = typeof next.content === 'string' ? next.content : contentText(next.content);
    return { headTurnId: (await ledger.getSession(created.id)).headTurnId as string, query };
  } finally {
    await ledger.close();
  }
}
