// The report's rows for the measures peers publish, beside ER: the full-context reference per
// category (the ceiling of the budgeted rows) and session and turn recall@k per ranker and category
// (LongMemEval's recall_any and recall_all). Pure, like aggregate.ts.

import { ALL_CATEGORIES, categoriesOf, meanOf } from './aggregate.ts';
import { SESSION_KS, TURN_KS } from './rank-evidence.ts';
import type { RankerName } from './rankers.ts';
import type { RankedQuestion, ReferenceScore } from './reference-run.ts';

export interface ReferenceRow {
  category: string;
  /** Questions scored for ER (those with evidence). */
  n: number;
  ap: number | null;
  atr: number | null;
  er_all: number | null;
  er_frac: number | null;
  containment: number | null;
  /** Mean tokens of the whole history up to each question. */
  tokens: number | null;
}

type SessionK = (typeof SESSION_KS)[number];
type TurnK = (typeof TURN_KS)[number];
type SessionField = `session_any_${SessionK}` | `session_all_${SessionK}` | `session_tokens_${SessionK}`;
type TurnField = `turn_any_${TurnK}` | `turn_all_${TurnK}` | `turn_tokens_${TurnK}`;

/**
 * One ranker on one category: `session_any_5` is recall_any@5 over sessions, `session_all_5`
 * recall_all@5, `session_tokens_5` the mean tokens of the first 5 sessions whole; likewise per turn.
 */
export type RankingRow = {
  ranker: RankerName;
  category: string;
  /** Questions with evidence in a conversation that has sessions. */
  session_n: number;
  /** Questions with evidence. */
  turn_n: number;
} & Record<SessionField | TurnField, number | null>;

export function aggregateReference(scores: readonly ReferenceScore[]): ReferenceRow[] {
  return categoriesOf(scores).map((category) => {
    const group = scores.filter((score) => category === ALL_CATEGORIES || score.category === category);
    return {
      category,
      n: group.filter((score) => score.erAll !== null).length,
      ap: meanOf(group.map((score) => score.ap)),
      atr: meanOf(group.map((score) => score.atr)),
      er_all: meanOf(group.map((score) => score.erAll)),
      er_frac: meanOf(group.map((score) => score.erFrac)),
      containment: meanOf(group.map((score) => score.containment)),
      tokens: meanOf(group.map((score) => score.tokens)),
    };
  });
}

export function aggregateRanking(rankings: readonly RankedQuestion[], rankers: readonly RankerName[]): RankingRow[] {
  const categories = categoriesOf(rankings);
  return rankers.flatMap((ranker) =>
    categories.map((category) => {
      const group = rankings.filter(
        (item) => item.ranker === ranker && (category === ALL_CATEGORIES || item.category === category),
      );
      const bySession = group.filter((item) => item.evidenceSessions > 0);
      const byTurn = group.filter((item) => item.evidenceTurns > 0);
      const fields: Array<[string, number | null]> = [
        ...SESSION_KS.flatMap(
          (k): Array<[string, number | null]> => [
            [`session_any_${k}`, meanOf(bySession.map((item) => within(item.sessionFirstHit, k)))],
            [`session_all_${k}`, meanOf(bySession.map((item) => within(item.sessionAllHit, k)))],
            [`session_tokens_${k}`, meanOf(bySession.map((item) => item.sessionTokens[String(k)] ?? 0))],
          ],
        ),
        ...TURN_KS.flatMap(
          (k): Array<[string, number | null]> => [
            [`turn_any_${k}`, meanOf(byTurn.map((item) => within(item.turnFirstHit, k)))],
            [`turn_all_${k}`, meanOf(byTurn.map((item) => within(item.turnAllHit, k)))],
            [`turn_tokens_${k}`, meanOf(byTurn.map((item) => item.turnTokens[String(k)] ?? 0))],
          ],
        ),
      ];
      return {
        ranker,
        category,
        session_n: bySession.length,
        turn_n: byTurn.length,
        ...Object.fromEntries(fields),
      } as RankingRow;
    }),
  );
}

/** 1 when the rank is among the first k. */
function within(rank: number | null, k: number): number {
  return rank !== null && rank <= k ? 1 : 0;
}
