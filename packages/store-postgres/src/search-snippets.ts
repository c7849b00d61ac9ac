// Search snippets: ts_headline over the hits shown, read back as the store's snippets (matched
// words in [brackets], `…` where the text was cut).

import type { PgExecutor } from './pg-executor.ts';
import type { Expression } from './search-tsquery.ts';
import { SqlParameters } from './sql-parameters.ts';

/**
 * The text ts_headline cuts: its parser takes `<…>` for markup and leaves it out of a headline
 * (`Array<string>` would show as `Array`), so each `<` goes in as a control character that only
 * separates words, and comes back as `<` in the snippet.
 */
const LESS_THAN = '\u0001';
export const HEADLINE_TEXT = (column: string) => `translate(coalesce(${column}, ''), '<', chr(1))`;

/** ts_headline's selectors: control characters no text shows, turned into [ ] once the cut is known. */
const START = '\u0002';
const STOP = '\u0003';
export const HEADLINE_OPTIONS = `StartSel="${START}", StopSel="${STOP}", MaxWords=16, MinWords=8, HighlightAll=false`;

/**
 * A headline as the store's snippets read: matched words in [brackets], `…` where text was cut
 * (ts_headline cuts without saying so: where the excerpt sits in the text tells).
 */
export function snippetOf(headline: string | null, text: string | null): string {
  if (!headline) return '';
  const shown = headline.replaceAll(LESS_THAN, '<');
  const plain = shown.replaceAll(START, '').replaceAll(STOP, '');
  const marked = shown.replaceAll(START, '[').replaceAll(STOP, ']');
  const source = text ?? '';
  const at = source.indexOf(plain);
  if (at < 0) return marked;
  const before = source.slice(0, at).trim() !== '' ? '…' : '';
  const after = source.slice(at + plain.length).trim() !== '' ? '…' : '';
  return `${before}${marked}${after}`;
}

/** Headlines only for the hits shown: over every match they would cost more than the ranking. */
export async function turnSnippets(db: PgExecutor, expression: Expression, turnIds: string[]): Promise<Map<string, string>> {
  const parameters = new SqlParameters();
  const sql =
    `SELECT t.id, t.search_text AS text, ts_headline('english'::regconfig, ${HEADLINE_TEXT('t.search_text')}, ${expression(parameters)}, ` +
    `${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM agent_turns t WHERE t.id = ANY(${parameters.add(turnIds)}::text[])`;
  const rows = await db.query<{ id: string; text: string | null; headline: string | null }>(sql, parameters.values);
  return new Map(rows.map((row) => [row.id, snippetOf(row.headline, row.text)]));
}
