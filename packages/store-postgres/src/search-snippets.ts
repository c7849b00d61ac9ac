// Search snippets on PostgreSQL: ts_headline marks every match in the whole text, and
// @agent-ledger/store's snippet rule (the one SQLite uses) cuts the excerpt. ts_headline reads the
// text as the index does, punctuation made spaces, so `5.7.44` is the words 5, 7 and 44 there as in
// the index (its parser would read a version, a host or a path as one token the query's words never
// match); each punctuation character becomes one space, so the marks fall on the same characters of
// the original text, where they are put back.

import { MATCH_START, MATCH_STOP, snippetOfHighlight } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { SEARCH_CONFIGURATION } from './schema.ts';
import type { Expression } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

/**
 * The text ts_headline marks: each punctuation character the index splits on (and the marks' own
 * control characters) as one space, so the text keeps its length (and `<…>` is never read as markup).
 */
export const HEADLINE_TEXT = (column: string) =>
  `regexp_replace(coalesce(${column}, ''), '[[:punct:]\\u2000-\\u206F\\u3000-\\u303F\\u0001-\\u0003]', ' ', 'g')`;

/** ts_headline marking every match of the whole text with the store's marks. */
export const HEADLINE_OPTIONS = `StartSel="${MATCH_START}", StopSel="${MATCH_STOP}", HighlightAll=true`;

/**
 * The marks of `headline` (the spaced text, marked) put back on `text`, the text it was made from:
 * the two are the same length once the marks are out. Null if they are not (the text could not be
 * read back character for character).
 */
function markedText(headline: string, text: string): string | null {
  let marked = '';
  let at = 0;
  for (let index = 0; index < headline.length; index += 1) {
    const character = headline.charAt(index);
    if (character === MATCH_START || character === MATCH_STOP) marked += character;
    else {
      marked += text.charAt(at);
      at += 1;
    }
  }
  return at === text.length ? marked : null;
}

/** A headline as the store's snippets read: matched words in [brackets], `…` where text was cut. */
export function snippetOf(headline: string | null, text: string | null): string {
  if (!headline) return '';
  return snippetOfHighlight(markedText(headline, text ?? '') ?? headline);
}

/** Headlines only for the hits shown: over every match they would cost more than the ranking. */
export async function turnSnippets(db: PgExecutor, expression: Expression, turnIds: string[]): Promise<Map<string, string>> {
  const parameters = new SqlParameters();
  const sql =
    `SELECT t.id, t.search_text AS text, ts_headline('${SEARCH_CONFIGURATION}'::regconfig, ${HEADLINE_TEXT('t.search_text')}, ` +
    `${expression(parameters)}, ${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM agent_turns t ` +
    `WHERE t.id = ANY(${parameters.add(turnIds)}::text[])`;
  const rows = await db.query<{ id: string; text: string | null; headline: string | null }>(sql, parameters.values);
  return new Map(rows.map((row) => [row.id, snippetOf(row.headline, row.text)]));
}
