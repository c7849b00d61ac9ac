// Turns as the search part of the store contract writes them (one text each), the words a search
// asks for, and every page of a search read through its cursors.

import type { LedgerStore, TurnRecord } from '../index.ts';
import type { SearchMatch, TurnSearchHit, TurnSearchQuery } from '../search-store.ts';
import { appendRows, sessionRecord, turnRecord } from './ledger-rows.ts';

/** The space-separated words of `text`, as a search asks for them. */
export const words = (text: string, mode: 'all' | 'any' | 'all-then-any' = 'all-then-any'): SearchMatch => ({
  words: text.split(' '),
  mode,
});

/** Where a turn of `said` goes and what it says. */
export interface Saying {
  id: string;
  sessionId: string;
  parent: TurnRecord | null;
  text: string;
}

/** A turn whose searchable text is `text`. */
export function said({ id, sessionId, parent, text }: Saying, fields: Partial<TurnRecord> = {}): TurnRecord {
  return turnRecord(id, sessionId, parent, { content: [{ type: 'text', text }], searchText: text, ...fields });
}

/** A session holding one turn per text, oldest first. */
export async function sessionSaying(store: LedgerStore, sessionId: string, texts: string[], fields: Partial<TurnRecord> = {}) {
  await store.insertSession(sessionRecord(sessionId));
  const turns: TurnRecord[] = [];
  for (const [index, text] of texts.entries()) {
    turns.push(said({ id: `${sessionId}-t${index}`, sessionId, parent: turns.at(-1) ?? null, text }, fields));
  }
  await appendRows(store, sessionId, null, turns);
  return turns;
}

/** Every hit of a search, read page by page through its cursors (a search that never ends fails). */
export async function allPages(store: LedgerStore, query: TurnSearchQuery): Promise<TurnSearchHit[]> {
  const hits: TurnSearchHit[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages += 1) {
    const page = await store.searchTurns({ ...query, cursor });
    hits.push(...page.hits);
    if (page.nextCursor === null) return hits;
    cursor = page.nextCursor;
  }
  throw new Error('paging never ended');
}

export const ids = (hits: ReadonlyArray<{ turnId: string }>) => hits.map((hit) => hit.turnId);
