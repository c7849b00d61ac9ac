// Search on SQLite: FTS5 over agent_turns (turns_fts for normal turns, compactions_fts for compaction
// summaries, read together) and events (events_fts), ranked by bm25 (the
// store's score is bm25 negated: higher is better), keyset-paged on (bm25, rowid); and the turns'
// embedding vectors (turn_embeddings, one float32 blob per turn and model).

import type {
  EventSearchHit,
  EventSearchQuery,
  LineSegment,
  SearchMatch,
  SearchStore,
  TurnSearchFilters,
  TurnSearchHit,
  TurnSearchQuery,
} from '@agent-ledger/store';
import { decodeCursor, encodeCursor, type KeysetPosition, matchExpressions, withSearchErrors } from './fts5-query.ts';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

interface Clauses {
  clauses: string[];
  parameters: unknown[];
}

const NONE: Clauses = { clauses: [], parameters: [] };

/** SQL true for a turn `t` on the line. */
function lineClauses(line: readonly LineSegment[]): Clauses {
  if (line.length === 0) return { clauses: ['0'], parameters: [] };
  return {
    clauses: line.map(() => '(t.session_id = ? AND t.depth BETWEEN ? AND ?)'),
    parameters: line.flatMap((segment) => [segment.sessionId, segment.fromDepth, segment.toDepth]),
  };
}

function turnFilters(filters: TurnSearchFilters): Clauses {
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    parameters.push(value);
  };
  if (filters.role !== undefined) add('t.role = ?', filters.role);
  if (filters.turnType !== undefined) add('t.turn_type = ?', filters.turnType);
  if (filters.author !== undefined) add("json_extract(t.metadata, '$.author') = ?", filters.author);
  if (filters.since !== undefined) add('t.timestamp >= ?', filters.since);
  if (filters.until !== undefined) add('t.timestamp <= ?', filters.until);
  if (filters.scope) {
    const scope = lineClauses(filters.scope.line);
    const sessions = filters.scope.sessionIds ?? [];
    const alternatives = filters.scope.line.length > 0 ? [...scope.clauses] : [];
    const values = filters.scope.line.length > 0 ? [...scope.parameters] : [];
    if (sessions.length > 0) {
      alternatives.push(`t.session_id IN (${sessions.map(() => '?').join(', ')})`);
      values.push(...sessions);
    }
    clauses.push(alternatives.length > 0 ? `(${alternatives.join(' OR ')})` : '0');
    parameters.push(...values);
  }
  return { clauses, parameters };
}

function keyset(after: KeysetPosition | null, score: string, rowid: string): Clauses {
  if (!after) return NONE;
  return { clauses: [`(${score} > ? OR (${score} = ? AND ${rowid} > ?))`], parameters: [after.score, after.score, after.rowid] };
}

/** SQL true when turn `t` is summarized on a line whose newest compaction has these columns. */
function coveredBy(throughDepth: string, depth: string): string {
  return `((t.turn_type = 'normal' AND t.depth <= ${throughDepth}) OR (t.turn_type = 'compaction' AND t.depth < ${depth}))`;
}

interface TurnRow {
  id: string;
  sessionId: string;
  depth: number;
  turnType: 'normal' | 'compaction';
  role: 'user' | 'assistant' | null;
  timestamp: number;
  rowid: number;
  score: number;
  canonical: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
}

/**
 * The turns a full-text expression matches, as `m (matchRowid, score)`: normal turns from turns_fts,
 * compaction summaries from compactions_fts (migration 0012), each scored by its own index's bm25.
 * Two indexes so that bm25's statistics over the turns are not skewed by summaries repeating the same
 * lines compaction after compaction. A search of one turn type reads that type's index only (recall
 * searches normal turns: it never scores the summaries); otherwise both, so a search finds summaries
 * as before. `expressions`: how many times the expression is bound.
 */
function matchedTurns(turnType: TurnSearchFilters['turnType']): { sql: string; expressions: number } {
  const index = (name: string) => `SELECT rowid AS matchRowid, bm25(${name}) AS score FROM ${name} WHERE ${name} MATCH ?`;
  if (turnType === 'normal') return { sql: `(${index('turns_fts')}) m`, expressions: 1 };
  if (turnType === 'compaction') return { sql: `(${index('compactions_fts')}) m`, expressions: 1 };
  return { sql: `(${index('turns_fts')} UNION ALL ${index('compactions_fts')}) m`, expressions: 2 };
}

/** The expression once per index `matchedTurns` reads. */
function bound(expression: string, matched: { expressions: number }): string[] {
  return Array.from({ length: matched.expressions }, () => expression);
}

const TURN_HIT_COLUMNS =
  't.id AS id, t.session_id AS sessionId, t.depth AS depth, t.turn_type AS turnType, t.role AS role, t.timestamp AS timestamp';

type EventRow = Record<string, unknown> & { rowid: number; score: number };

export function searchQueries(connection: SqliteConnection): Synchronous<SearchStore> {
  const { sqlite, statement } = connection;

  const anyTurnMatch = (expression: string, filters: Clauses, turnType: TurnSearchFilters['turnType']): boolean => {
    const matched = matchedTurns(turnType);
    const where = filters.clauses.length > 0 ? ` WHERE ${filters.clauses.join(' AND ')}` : '';
    const sql = `SELECT 1 FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid${where} LIMIT 1`;
    return statement(sql).get(...bound(expression, matched), ...filters.parameters) !== undefined;
  };

  const rawPage = (
    expression: string,
    filters: Clauses,
    turnType: TurnSearchFilters['turnType'],
    after: KeysetPosition | null,
    take: number,
  ): TurnRow[] => {
    const matched = matchedTurns(turnType);
    const page = keyset(after, 'm.score', 't.rowid');
    const where = [...filters.clauses, ...page.clauses];
    const sql =
      `SELECT ${TURN_HIT_COLUMNS}, t.rowid AS rowid, m.score AS score, t.id AS canonical, ` +
      't.session_id AS canonicalSessionId, t.timestamp AS canonicalTimestamp ' +
      `FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid ` +
      `${where.length > 0 ? `WHERE ${where.join(' AND ')} ` : ''}ORDER BY score, t.rowid LIMIT ?`;
    return statement(sql).all(...bound(expression, matched), ...filters.parameters, ...page.parameters, take) as TurnRow[];
  };

  /**
   * The resolved view in one statement: each match maps to the turn that stands for it — the
   * newest compaction of its line when that compaction covers it (each folds the one before), else
   * the turn itself — and matches are grouped by that turn, best score first. Every match is ranked
   * once per page, and a compaction appears on one page only.
   */
  const resolvedPage = (
    expression: string,
    query: TurnSearchQuery,
    filters: Clauses,
    after: KeysetPosition | null,
    take: number,
  ): TurnRow[] => {
    const matched = matchedTurns(query.filters?.turnType);
    // A turn outside the viewed line (or with no view) resolves on its own session's line.
    const ownLine =
      'CASE WHEN c.id IS NOT NULL AND (s.ignore_compactions_through_depth IS NULL OR c.depth > s.ignore_compactions_through_depth) ' +
      `AND ${coveredBy('c.summarized_through_depth', 'c.depth')} THEN c.id ELSE t.id END`;
    let canonical = ownLine;
    const canonicalParameters: unknown[] = [];
    const line = query.filters?.scope?.line;
    if (line) {
      const view = query.lineCompaction ?? null;
      const onLine = lineClauses(line);
      const onViewLine = view ? `CASE WHEN ${coveredBy('?', '?')} THEN ? ELSE t.id END` : 't.id';
      canonical = `CASE WHEN (${onLine.clauses.join(' OR ')}) THEN ${onViewLine} ELSE ${ownLine} END`;
      canonicalParameters.push(...onLine.parameters);
      if (view) canonicalParameters.push(view.summarizedThroughDepth, view.depth, view.id);
    }
    const page = keyset(after, 'g.score', 'g.turnRowid');
    const sql =
      // MATERIALIZED: the matches are scored once, before GROUP BY.
      `WITH matches AS MATERIALIZED (SELECT ${TURN_HIT_COLUMNS}, t.rowid AS turnRowid, m.score AS score, ` +
      `${canonical} AS canonical ` +
      `FROM ${matched.sql} CROSS JOIN agent_turns t ON t.rowid = m.matchRowid JOIN agent_sessions s ON s.id = t.session_id ` +
      'LEFT JOIN agent_turns h ON h.id = s.head_turn_id LEFT JOIN agent_turns c ON c.id = h.latest_compaction_id ' +
      `${filters.clauses.length > 0 ? `WHERE ${filters.clauses.join(' AND ')}` : ''}), ` +
      // SQLite takes the bare columns of a MIN() group from the row holding the minimum: the best
      // match (another engine: DISTINCT ON (canonical) … ORDER BY canonical, score, rowid).
      // (`turnRowid`, not `rowid`: inside a materialized CTE `rowid` names the CTE's own row number.)
      'grouped AS (SELECT canonical, MIN(score) AS score, id, sessionId, depth, turnType, role, timestamp, turnRowid ' +
      'FROM matches GROUP BY canonical) ' +
      'SELECT g.id AS id, g.sessionId AS sessionId, g.depth AS depth, g.turnType AS turnType, g.role AS role, ' +
      'g.timestamp AS timestamp, g.turnRowid AS rowid, g.score AS score, g.canonical AS canonical, ' +
      'k.session_id AS canonicalSessionId, k.timestamp AS canonicalTimestamp FROM grouped g JOIN agent_turns k ON k.id = g.canonical ' +
      `${page.clauses.length > 0 ? `WHERE ${page.clauses.join(' AND ')} ` : ''}ORDER BY g.score, g.turnRowid LIMIT ?`;
    return statement(sql).all(
      ...canonicalParameters,
      ...bound(expression, matched),
      ...filters.parameters,
      ...page.parameters,
      take,
    ) as TurnRow[];
  };

  // Snippets only for the hits shown: computed in the ranking query they cost as much as the ranking.
  // (CAST: FTS5 drops a `rowid = ?` constraint bound as a double, and would snippet the first match.)
  const snippetOf = (table: 'turns_fts' | 'compactions_fts' | 'events_fts', expression: string, rowid: number): string =>
    (
      statement(
        `SELECT snippet(${table}, 0, '[', ']', '…', 16) AS snippet FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`,
      ).get(expression, rowid) as { snippet: string } | undefined
    )?.snippet ?? '';

  /** The expression a search uses: the first that finds something under the filters, else the last. */
  const chooseExpression = (match: SearchMatch, found: (expression: string) => boolean): string | undefined => {
    const expressions = matchExpressions(match);
    return expressions.find((candidate, index) => index === expressions.length - 1 || found(candidate));
  };

  const searchTurns = (query: TurnSearchQuery) =>
    withSearchErrors(query.match, () => {
      const filters = turnFilters(query.filters ?? {});
      const after = decodeCursor(query.cursor);
      const turnType = query.filters?.turnType;
      const expression = chooseExpression(query.match, (candidate) => anyTurnMatch(candidate, filters, turnType));
      if (expression === undefined) return { hits: [], nextCursor: null };
      const take = query.limit + 1;
      const rows =
        query.view === 'raw'
          ? rawPage(expression, filters, turnType, after, take)
          : resolvedPage(expression, query, filters, after, take);
      const page = rows.slice(0, query.limit);
      const hits: TurnSearchHit[] = page.map((row) => ({
        turnId: row.id,
        sessionId: row.sessionId,
        depth: row.depth,
        turnType: row.turnType,
        role: row.role,
        timestamp: row.timestamp,
        score: -row.score,
        snippet:
          query.snippets === false
            ? ''
            : snippetOf(row.turnType === 'compaction' ? 'compactions_fts' : 'turns_fts', expression, row.rowid),
        canonicalTurnId: row.canonical,
        canonicalSessionId: row.canonicalSessionId,
        canonicalTimestamp: row.canonicalTimestamp,
        cursor: encodeCursor({ score: row.score, rowid: row.rowid }),
      }));
      const last = page.at(-1);
      return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
    });

  const searchEvents = (query: EventSearchQuery) =>
    withSearchErrors(query.match, () => {
      const clauses: string[] = [];
      const parameters: unknown[] = [];
      const add = (clause: string, value: unknown) => {
        clauses.push(clause);
        parameters.push(value);
      };
      const filters = query.filters ?? {};
      if (filters.channel !== undefined) add('e.channel = ?', filters.channel);
      if (filters.author !== undefined) add('e.author = ?', filters.author);
      if (filters.kind !== undefined) add('e.kind = ?', filters.kind);
      if (filters.since !== undefined) add('e.occurred_at >= ?', filters.since);
      if (filters.until !== undefined) add('e.occurred_at <= ?', filters.until);
      const run = (expression: string, after: KeysetPosition | null, take: number): EventRow[] => {
        const where = ['events_fts MATCH ?', ...clauses];
        const values: unknown[] = [expression, ...parameters];
        if (after) {
          where.push('(bm25(events_fts) > ? OR (bm25(events_fts) = ? AND e.rowid > ?))');
          values.push(after.score, after.score, after.rowid);
        }
        const sql =
          'SELECT e.id, e.channel, e.external_id AS externalId, e.author, e.kind, e.payload, e.occurred_at AS occurredAt, ' +
          'e.received_at AS receivedAt, e.seq, e.prev_hash AS prevHash, e.hash, e.search_text AS searchText, ' +
          'e.rowid AS rowid, bm25(events_fts) AS score ' +
          `FROM events_fts JOIN events e ON e.rowid = events_fts.rowid WHERE ${where.join(' AND ')} ORDER BY score, e.rowid LIMIT ?`;
        return statement(sql).all(...values, take) as EventRow[];
      };
      const after = decodeCursor(query.cursor);
      const expression = chooseExpression(query.match, (candidate) => run(candidate, null, 1).length > 0);
      if (expression === undefined) return { hits: [], nextCursor: null };
      const rows = run(expression, after, query.limit + 1);
      const page = rows.slice(0, query.limit);
      const hits: EventSearchHit[] = page.map(({ rowid, score, ...record }) => ({
        event: record as unknown as EventSearchHit['event'],
        score: -score,
        snippet: snippetOf('events_fts', expression, rowid),
        cursor: encodeCursor({ score, rowid }),
      }));
      const last = page.at(-1);
      return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
    });

  const insertEmbedding = sqlite.transaction((model: string, embeddings: Parameters<SearchStore['putTurnEmbeddings']>[1]) => {
    const insert = statement('INSERT OR REPLACE INTO turn_embeddings (turn_id, model, dimensions, vector) VALUES (?, ?, ?, ?)');
    for (const { turnId, vector } of embeddings) {
      insert.run(turnId, model, vector.length, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    }
  });

  return {
    searchTurns,
    searchEvents,
    countTurnMatches: (match) =>
      withSearchErrors(match, () => {
        const count = (expression: string) =>
          (
            statement(
              'SELECT (SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?) + ' +
                '(SELECT count(*) FROM compactions_fts WHERE compactions_fts MATCH ?) AS n',
            ).get(expression, expression) as { n: number }
          ).n;
        let found = 0;
        // The same choice as a search: the first expression that matches anything, else the last.
        for (const expression of matchExpressions(match)) {
          found = count(expression);
          if (found > 0) break;
        }
        return found;
      }),
    countTurns: () => (statement('SELECT count(*) AS n FROM agent_turns').get() as { n: number }).n,
    turnsWithoutEmbedding: (model, line) => {
      const { clauses, parameters } = lineClauses(line);
      return statement(
        'SELECT t.id AS turnId, t.search_text AS text FROM agent_turns t ' +
          'LEFT JOIN turn_embeddings e ON e.turn_id = t.id AND e.model = ? ' +
          `WHERE t.turn_type = 'normal' AND e.turn_id IS NULL AND (${clauses.join(' OR ')}) ORDER BY t.depth`,
      ).all(model, ...parameters) as Array<{ turnId: string; text: string | null }>;
    },
    putTurnEmbeddings: (model, embeddings) => {
      if (embeddings.length > 0) insertEmbedding(model, embeddings);
    },
    turnEmbeddingPage: ({ after, limit }) => {
      const rows = (
        after === undefined
          ? statement('SELECT model, turn_id AS turnId, vector FROM turn_embeddings ORDER BY model, turn_id LIMIT ?').all(limit)
          : statement(
              'SELECT model, turn_id AS turnId, vector FROM turn_embeddings WHERE (model, turn_id) > (?, ?) ' +
                'ORDER BY model, turn_id LIMIT ?',
            ).all(after.model, after.turnId, limit)
      ) as Array<{ model: string; turnId: string; vector: Buffer }>;
      return rows.map((row) => ({ model: row.model, turnId: row.turnId, vector: vectorOf(row.vector) }));
    },
    turnEmbeddings: (model, line) => {
      const { clauses, parameters } = lineClauses(line);
      const rows = statement(
        'SELECT t.id AS turnId, t.depth AS depth, e.vector AS vector FROM turn_embeddings e ' +
          `JOIN agent_turns t ON t.id = e.turn_id WHERE e.model = ? AND (${clauses.join(' OR ')})`,
      ).all(model, ...parameters) as Array<{ turnId: string; depth: number; vector: Buffer }>;
      return rows.map((row) => ({ turnId: row.turnId, depth: row.depth, vector: vectorOf(row.vector) }));
    },
  };
}

/** A float32 blob as a Float32Array (copied when the driver's buffer is not 4-byte aligned). */
function vectorOf(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(Uint8Array.from(blob).buffer);
}
