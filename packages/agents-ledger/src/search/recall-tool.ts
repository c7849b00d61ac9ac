// The recall tool a chat runtime hands to the model, so it can search its own earlier transcript —
// including what compactions replaced — and open what it finds. The definition is Anthropic's tool
// format; the handler returns compact text with ids that getTurn / getSummarizedTurns can open.

import { searchTerms } from '@agent-ledger/core';
import type { AgentsLedger } from '../agents-ledger.ts';
import type { TurnSearchResult } from './search-turns.ts';

export const RECALL_TOOL_NAME = 'search_history';

export const recallToolDefinition = {
  name: RECALL_TOOL_NAME,
  description:
    'Search the whole conversation history, including turns that were summarized out of your context, ' +
    'and messages that arrived from outside channels. Use it when the user refers to something said earlier ' +
    'that is not in your context, or to check an exact value (a version, a path, a number). Returns the best ' +
    'matches with their turn or event ids and a snippet; [brackets] mark the matching words.',
  input_schema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to look for; plain text, not a query language.' },
      limit: { type: 'integer', minimum: 1, maximum: 20, description: 'How many matches to return (default 5).' },
      raw: {
        type: 'boolean',
        description: 'Return the matching turns themselves rather than the summaries that stand in for them.',
      },
    },
    required: ['query'],
  },
} as const;

export interface RecallToolInput {
  query: string;
  limit?: number;
  raw?: boolean;
}

export interface RecallHit {
  id: string;
  kind: 'turn' | 'compaction' | 'event';
  via?: string;
  when: string;
  snippet: string;
}

/** Events search, when the runtime has an events ledger: passed in so the two ledgers stay apart. */
export type EventSearch = (
  query: string,
  limit: number,
) => Promise<Array<{ eventId: string; occurredAt: number; snippet: string; score: number }>>;

export interface RecallToolOptions {
  ledger: AgentsLedger;
  /** Limit the search to this session's line (and its forks). */
  sessionId?: string;
  searchEvents?: EventSearch;
  /**
   * Turns the model already has in front of it (the message it is answering, its own tool calls):
   * a search for the question's words would otherwise return the question.
   */
  excludeTurnIds?: ReadonlySet<string>;
  /** Events those turns answer (the inbound message the question arrived as), likewise left out. */
  excludeEventIds?: ReadonlySet<string>;
}

/** Runs the tool. Never throws on bad model input: the model gets an error text it can act on. */
export function createRecallToolHandler(options: RecallToolOptions) {
  return async (input: unknown): Promise<{ content: string; hits: RecallHit[]; isError: boolean }> => {
    const { query, limit = 5, raw = false } = (input ?? {}) as Partial<RecallToolInput>;
    if (typeof query !== 'string' || query.trim() === '') {
      return { content: 'search_history needs a non-empty "query" string.', hits: [], isError: true };
    }
    const take = Number.isInteger(limit) ? Math.min(20, Math.max(1, limit)) : 5;
    const excluded = options.excludeTurnIds ?? new Set<string>();
    const searchOptions = {
      limit: Math.min(200, take + excluded.size),
      view: raw ? ('raw' as const) : ('resolved' as const),
      sessionId: options.sessionId,
      includeForks: true,
    };
    const keep = (found: TurnSearchResult) => found.hits.filter((hit) => !excluded.has(hit.via ?? hit.turnId)).slice(0, take);
    let turnHits = keep(await options.ledger.search(query, searchOptions));
    // Every word matched only the excluded turns (the question has all its own words): any word will do.
    if (turnHits.length === 0 && excluded.size > 0 && searchTerms(query).length > 1) {
      turnHits = keep(await options.ledger.search(query, { ...searchOptions, anyWord: true }));
    }
    const turns = { hits: turnHits };
    const excludedEvents = options.excludeEventIds ?? new Set<string>();
    const events = options.searchEvents
      ? (await options.searchEvents(query, take + excludedEvents.size))
          .filter((hit) => !excludedEvents.has(hit.eventId))
          .slice(0, take)
      : [];
    const hits: Array<RecallHit & { score: number }> = [
      ...turns.hits.map((hit) => ({
        id: hit.turnId,
        kind: hit.turnType === 'compaction' ? ('compaction' as const) : ('turn' as const),
        ...(hit.via ? { via: hit.via } : {}),
        when: new Date(hit.timestamp).toISOString(),
        snippet: hit.snippet,
        score: hit.score,
      })),
      ...events.map((hit) => ({
        id: hit.eventId,
        kind: 'event' as const,
        when: new Date(hit.occurredAt).toISOString(),
        snippet: hit.snippet,
        score: hit.score,
      })),
    ]
      .sort((left, right) => left.score - right.score)
      .slice(0, take);
    if (hits.length === 0) return { content: `No match for "${query}" in the history.`, hits: [], isError: false };
    const lines = hits.map(
      (hit) => `${hit.id} (${hit.kind}${hit.via ? `, matched in ${hit.via}` : ''}, ${hit.when}): ${hit.snippet}`,
    );
    return { content: lines.join('\n'), hits: hits.map(({ score: _score, ...hit }) => hit), isError: false };
  };
}
