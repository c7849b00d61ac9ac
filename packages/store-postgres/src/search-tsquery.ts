// The tsquery of a search's match. Words go through nexus_words_tsquery (extra/search.sql:
// phraseto_tsquery per word, joined by AND or OR), so no word is ever syntax; advanced text goes to
// websearch_to_tsquery, which reads any text without an error, after the checks below refuse what
// is malformed on every engine.

import { SearchSyntaxError } from '@agent-ledger/core';
import type { SearchMatch } from '@agent-ledger/store';
import { SEARCH_CONFIGURATION } from './schema.ts';
import type { SqlParameters } from './sql-parameters.ts';

/**
 * A tsquery as SQL, given the statement's parameters. One made of words carries them, so a turn
 * search can weigh each word by its rarity (scoredTurns).
 */
export type Expression = ((parameters: SqlParameters) => string) & { words?: readonly string[]; anyWord?: boolean };

/** PostgreSQL text cannot hold NUL: it reads as a space (as on SQLite). */
export const withoutNul = (text: string) => text.replaceAll('\0', ' ');

/**
 * What the engine-neutral syntax of an advanced query must respect on every engine: quotes and
 * parentheses balanced, no AND/OR dangling at either end (websearch_to_tsquery would read these
 * silently as something else; SQLite refuses them).
 */
function checkAdvanced(advanced: string): void {
  const refuse = (reason: string) => {
    throw new SearchSyntaxError(advanced, reason);
  };
  if ((advanced.match(/"/g)?.length ?? 0) % 2 === 1) refuse('a quote is not closed');
  let depth = 0;
  let quoted = false;
  for (const character of advanced) {
    if (character === '"') quoted = !quoted;
    else if (!quoted && character === '(') depth += 1;
    else if (!quoted && character === ')') {
      depth -= 1;
      if (depth < 0) refuse('a parenthesis closes none');
    }
  }
  if (depth !== 0) refuse('a parenthesis is not closed');
  const bare = advanced
    .replace(/"[^"]*"/g, ' x ')
    .replace(/[()]/g, ' ')
    .trim()
    .split(/\s+/);
  if (/^(AND|OR)$/.test(bare[0] ?? '') || /^(AND|OR|NOT)$/.test(bare.at(-1) ?? '')) refuse('an operator is missing an operand');
}

/**
 * The tsqueries to try, in order: the last is used when the ones before find nothing under the
 * filters (`all-then-any` with several words: every word, then any word). Empty: no match.
 */
export function matchExpressions(match: SearchMatch): Expression[] {
  if ('advanced' in match) {
    if (match.advanced.trim() === '') return [];
    checkAdvanced(match.advanced);
    const text = withoutNul(match.advanced);
    return [(parameters) => `websearch_to_tsquery('${SEARCH_CONFIGURATION}'::regconfig, ${parameters.add(text)})`];
  }
  if (match.words.length === 0) return [];
  const words = match.words.map(withoutNul);
  const all = wordsExpression(words, false);
  const any = wordsExpression(words, true);
  if (match.mode === 'all') return [all];
  if (match.mode === 'any') return [any];
  return words.length > 1 ? [all, any] : [all];
}

/**
 * What a search matches, and the tsquery that ranks its matches. They differ when common words only
 * filter (every word must match, the rarer words rank): then `rank` is the same object as `match`
 * only when they are the same query.
 */
export interface SearchExpression {
  match: Expression;
  rank: Expression;
}

/** The tsquery of `words` joined by AND or OR, carrying its words (scoredTurns weighs them). */
function wordsExpression(words: readonly string[], anyWord: boolean): Expression {
  return Object.assign((parameters: SqlParameters) => `nexus_words_tsquery(${parameters.add(words)}::text[], ${anyWord})`, {
    words,
    anyWord,
  });
}

/** The words that rank a search: those not `common`, or every word when all are. */
function rankingWords(words: readonly string[], common: ReadonlySet<string>): readonly string[] {
  const ranking = words.filter((word) => !common.has(word));
  return (ranking.length > 0 ? ranking : words).map(withoutNul);
}

/** Every word must match; the words not `common` rank (@agent-ledger/store search-bounds.ts). */
export function everyWordExpression(words: readonly string[], common: ReadonlySet<string>): SearchExpression {
  const all = wordsExpression(words.map(withoutNul), false);
  const ranked = rankingWords(words, common);
  return { match: all, rank: ranked.length === words.length ? all : wordsExpression(ranked, false) };
}

/** Any word not `common` matches and ranks, so a common word cannot flood the search (@agent-ledger/store search-bounds.ts). */
export function anyWordExpression(words: readonly string[], common: ReadonlySet<string>): SearchExpression {
  const any = wordsExpression(rankingWords(words, common), true);
  return { match: any, rank: any };
}

/**
 * SQL true for the rows `expression` matches (`vector`: their search_vector), and the SQL of its
 * rank tsquery. When only the rarer words rank, the index is asked for those (a short list), and the
 * whole query is checked on the rows found as a plain condition (IS TRUE keeps the planner from
 * reading a common word's long list in the index too).
 */
export function matchingClause(
  expression: SearchExpression,
  vector: string,
  parameters: SqlParameters,
): { sql: string; rank: string } {
  const rank = expression.rank(parameters);
  if (expression.rank === expression.match) return { sql: `${vector} @@ ${rank}`, rank };
  return { sql: `${vector} @@ ${rank} AND (${vector} @@ ${expression.match(parameters)}) IS TRUE`, rank };
}

/** The expression a search uses: the first that finds something, else the last (undefined: no match). */
export async function chooseExpression<T>(
  expressions: readonly T[],
  found: (expression: T) => Promise<boolean>,
): Promise<T | undefined> {
  for (const [index, expression] of expressions.entries()) {
    if (index === expressions.length - 1 || (await found(expression))) return expression;
  }
  return undefined;
}
