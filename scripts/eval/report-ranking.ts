// The rankings' tables of the report: session and turn recall@k as LongMemEval reports retrieval
// (recall_any: ANY evidence session or turn among the first k; recall_all: every one), with what
// the first k would cost in tokens, and recall_any per category. Pure, like report.ts.

import { ALL_CATEGORIES } from './aggregate.ts';
import type { RankingRow } from './aggregate-peers.ts';
import { formatMarkdownTable, formatPercent, formatTokens } from './markdown-table.ts';

const RANKER_NOTE =
  'retrieval: the order `retrieval` sends turns in (bm25 on the question, every word first); recall: the hybrid ' +
  "context's recall ranking before its budget (ledger.recall, bm25 alone: content words, any word, speakers, dates, " +
  "neighbours); with an embedder, vectors: cosine similarity to the question's vector, and fused: ledger.recall with " +
  'the stored vectors fused in, as the hybrid context ranks. ' +
  'Sessions rank by their best turn; ' +
  'tokens@k: mean tokens of the first k sessions (or turns) whole.';

/** The "all" rows: one table for sessions (when any conversation has them), one for turns. */
export function rankingTables(ranking: readonly RankingRow[]): string[] {
  const all = ranking.filter((row) => row.category === ALL_CATEGORIES);
  if (all.length === 0) return [];
  const tables: string[] = [];
  if (all.some((row) => row.session_n > 0)) {
    tables.push(
      `## Session recall of the rankings (recall_any / recall_all @k)\n\n${formatMarkdownTable(
        ['ranker', 'n', 'any@5', 'any@10', 'all@5', 'all@10', 'tokens@5', 'tokens@10'],
        all.map((row) => [
          row.ranker,
          String(row.session_n),
          formatPercent(row.session_any_5),
          formatPercent(row.session_any_10),
          formatPercent(row.session_all_5),
          formatPercent(row.session_all_10),
          formatTokens(row.session_tokens_5),
          formatTokens(row.session_tokens_10),
        ]),
        new Set([0]),
      )}`,
    );
  }
  tables.push(
    `## Turn recall of the rankings (recall_any / recall_all @k)\n\n${formatMarkdownTable(
      ['ranker', 'n', 'any@5', 'any@10', 'any@20', 'all@5', 'all@10', 'all@20', 'tokens@20'],
      all.map((row) => [
        row.ranker,
        String(row.turn_n),
        formatPercent(row.turn_any_5),
        formatPercent(row.turn_any_10),
        formatPercent(row.turn_any_20),
        formatPercent(row.turn_all_5),
        formatPercent(row.turn_all_10),
        formatPercent(row.turn_all_20),
        formatTokens(row.turn_tokens_20),
      ]),
      new Set([0]),
    )}\n\n${RANKER_NOTE}`,
  );
  return tables;
}

/** recall_any per category and ranker (sessions at 5 and 10, turns at 5, 10 and 20); null when no category has a row. */
export function rankingByCategoryTable(ranking: readonly RankingRow[], categories: readonly string[]): string | null {
  const lines = categories.flatMap((category) =>
    ranking
      .filter((row) => row.category === category)
      .map((row) => [
        category,
        String(row.turn_n),
        row.ranker,
        formatPercent(row.session_any_5),
        formatPercent(row.session_any_10),
        formatPercent(row.turn_any_5),
        formatPercent(row.turn_any_10),
        formatPercent(row.turn_any_20),
      ]),
  );
  if (lines.length === 0) return null;
  return `## Recall_any of the rankings by category\n\n${formatMarkdownTable(
    ['category', 'n', 'ranker', 'session@5', 'session@10', 'turn@5', 'turn@10', 'turn@20'],
    lines,
    new Set([0, 2]),
  )}`;
}
