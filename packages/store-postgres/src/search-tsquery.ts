// The tsquery of a search's match. Words go through nexus_words_tsquery (extra/search.sql:
// phraseto_tsquery per word, joined by AND or OR), so no word is ever syntax; advanced text goes to
// websearch_to_tsquery, which reads any text without an error, after the checks below refuse what
// is malformed on every engine.

import { SearchSyntaxError } from '@agent-ledger/core';
import type { SearchMatch } from '@agent-ledger/store';
import type { SqlParameters } from './sql-parameters.ts';

/**
 * A tsquery as SQL, given the statement's parameters. One made of words carries them, so a turn
 * search can weigh each word by its rarity (scoredTurns).
 */
export type Expression = ((parameters: SqlParameters) => string) & { words?: readonly string[]; anyWord?: boolean };

/** PostgreSQL text cannot hold NUL: it reads as a space (as on SQLite). */
const withoutNul = (text: string) => text.replaceAll('\0', ' ');

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
    return [(parameters) => `websearch_to_tsquery('english'::regconfig, ${parameters.add(text)})`];
  }
  if (match.words.length === 0) return [];
  const words = match.words.map(withoutNul);
  const all: Expression = Object.assign(
    (parameters: SqlParameters) => `nexus_words_tsquery(${parameters.add(words)}::text[], false)`,
    { words },
  );
  const any: Expression = Object.assign(
    (parameters: SqlParameters) => `nexus_words_tsquery(${parameters.add(words)}::text[], true)`,
    { words, anyWord: true },
  );
  if (match.mode === 'all') return [all];
  if (match.mode === 'any') return [any];
  return words.length > 1 ? [all, any] : [all];
}

/** The expression a search uses: the first that finds something, else the last (undefined: no match). */
export async function chooseExpression(
  expressions: Expression[],
  found: (expression: Expression) => Promise<boolean>,
): Promise<Expression | undefined> {
  for (const [index, expression] of expressions.entries()) {
    if (index === expressions.length - 1 || (await found(expression))) return expression;
  }
  return undefined;
}
