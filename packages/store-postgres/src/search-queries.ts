// Search on PostgreSQL: the generated `search_vector` (tsvector, english) of agent_turns and events
// with their GIN indexes, ranked by ts_rank_cd normalized by length (higher is better; for turns
// searched by words, each word's weighted by its rarity: scoredTurns), keyset-paged on (score, then the
// older row first: timestamp or receivedAt, then id); snippets by ts_headline for the hits shown;
// and the turns' embedding vectors (turn_embeddings, one float32 little-endian bytea per turn and
// model). The semantics are sqlite/search-queries.ts's.
//
// Queries: words go through nexus_words_tsquery (extra/search.sql: plainto_tsquery per word, joined
// by AND or OR), so no word is ever syntax; advanced text goes to websearch_to_tsquery, which reads
// any text without an error, after the checks below refuse what is malformed on every engine.

import { invalidCursorError, SearchSyntaxError } from '@agent-ledger/core';
import type {
  EventSearchHit,
  EventSearchQuery,
  LineCompaction,
  LineSegment,
  SearchMatch,
  SearchPage,
  SearchStore,
  TurnSearchFilters,
  TurnSearchHit,
  TurnSearchQuery,
} from '@agent-ledger/store';
import { EVENT_COLUMNS } from './event-queries.ts';
import type { PgExecutor } from './pg-executor.ts';

/** Bound parameters of one statement: `add` returns the placeholder ($n) of the value. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A tsquery as SQL, given the statement's parameters. One made of words carries them, so a turn
 * search can weigh each word by its rarity (scoredTurns).
 */
type Expression = ((parameters: Parameters) => string) & { words?: readonly string[]; anyWord?: boolean };

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
function matchExpressions(match: SearchMatch): Expression[] {
  if ('advanced' in match) {
    if (match.advanced.trim() === '') return [];
    checkAdvanced(match.advanced);
    const text = withoutNul(match.advanced);
    return [(parameters) => `websearch_to_tsquery('english'::regconfig, ${parameters.add(text)})`];
  }
  if (match.words.length === 0) return [];
  const words = match.words.map(withoutNul);
  const all: Expression = Object.assign(
    (parameters: Parameters) => `nexus_words_tsquery(${parameters.add(words)}::text[], false)`,
    { words },
  );
  const any: Expression = Object.assign(
    (parameters: Parameters) => `nexus_words_tsquery(${parameters.add(words)}::text[], true)`,
    { words, anyWord: true },
  );
  if (match.mode === 'all') return [all];
  if (match.mode === 'any') return [any];
  return words.length > 1 ? [all, any] : [all];
}

/** Where a ranked page ends: the score, then the row's place among equal scores (older first). */
interface KeysetPosition {
  score: number;
  /** timestamp (turns) or receivedAt (events). */
  age: number;
  id: string;
}

function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify(['pg', position.score, position.age, position.id])).toString('base64url');
}

function decodeCursor(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined || cursor === '') return null;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(decoded) && decoded.length === 4) {
      const [tag, score, age, id] = decoded as unknown[];
      if (
        tag === 'pg' &&
        typeof score === 'number' &&
        Number.isFinite(score) &&
        Number.isSafeInteger(age) &&
        typeof id === 'string'
      )
        return { score, age: age as number, id };
    }
  } catch {
    // refused below
  }
  throw invalidCursorError(cursor);
}

/** SQL true for rows after `after` in the order (score DESC, age, id): each bound once. */
function afterClause(after: KeysetPosition, score: string, age: string, id: string, parameters: Parameters): string {
  const at = parameters.add(after.score);
  return (
    `(${score} < ${at}::float8 OR (${score} = ${at}::float8 AND ` +
    `(${age}, ${id} COLLATE "C") > (${parameters.add(after.age)}::bigint, ${parameters.add(after.id)}::text)))`
  );
}

/** SQL true for a turn `t` on the line. */
function lineClause(line: readonly LineSegment[], parameters: Parameters): string {
  if (line.length === 0) return 'false';
  return `(${line
    .map(
      (segment) =>
        `(t.session_id = ${parameters.add(segment.sessionId)} AND t.depth BETWEEN ${parameters.add(segment.fromDepth)}::int ` +
        `AND ${parameters.add(segment.toDepth)}::int)`,
    )
    .join(' OR ')})`;
}

function turnFilters(filters: TurnSearchFilters, parameters: Parameters): string[] {
  const clauses: string[] = [];
  if (filters.role !== undefined) clauses.push(`t.role = ${parameters.add(filters.role)}`);
  if (filters.turnType !== undefined) clauses.push(`t.turn_type = ${parameters.add(filters.turnType)}`);
  if (filters.author !== undefined) clauses.push(`t.metadata->>'author' = ${parameters.add(filters.author)}`);
  if (filters.since !== undefined) clauses.push(`t.timestamp >= ${parameters.add(filters.since)}::bigint`);
  if (filters.until !== undefined) clauses.push(`t.timestamp <= ${parameters.add(filters.until)}::bigint`);
  if (filters.scope) {
    const alternatives: string[] = [];
    if (filters.scope.line.length > 0) alternatives.push(lineClause(filters.scope.line, parameters));
    const sessions = filters.scope.sessionIds ?? [];
    if (sessions.length > 0) alternatives.push(`t.session_id = ANY(${parameters.add(sessions)}::text[])`);
    clauses.push(alternatives.length > 0 ? `(${alternatives.join(' OR ')})` : 'false');
  }
  return clauses;
}

/** SQL true when turn `t` is summarized on a line whose newest compaction has these depths. */
function coveredBy(throughDepth: string, depth: string): string {
  return `((t.turn_type = 'normal' AND t.depth <= ${throughDepth}) OR (t.turn_type = 'compaction' AND t.depth < ${depth}))`;
}

/** The turn standing for a match `t` in the resolved view (s: its session, c: its line's newest compaction). */
function canonicalTurn(line: readonly LineSegment[] | undefined, view: LineCompaction | null, parameters: Parameters): string {
  // A turn outside the viewed line (or with no view) resolves on its own session's line.
  const ownLine =
    'CASE WHEN c.id IS NOT NULL AND (s.ignore_compactions_through_depth IS NULL OR c.depth > s.ignore_compactions_through_depth) ' +
    `AND ${coveredBy('c.summarized_through_depth', 'c.depth')} THEN c.id ELSE t.id END`;
  if (!line) return ownLine;
  const onViewLine = view
    ? `CASE WHEN ${coveredBy(`${parameters.add(view.summarizedThroughDepth)}::int`, `${parameters.add(view.depth)}::int`)} ` +
      `THEN ${parameters.add(view.id)}::text ELSE t.id END`
    : 't.id';
  return `CASE WHEN ${lineClause(line, parameters)} THEN ${onViewLine} ELSE ${ownLine} END`;
}

interface TurnRow {
  id: string;
  sessionId: string;
  depth: number;
  turnType: 'normal' | 'compaction';
  role: 'user' | 'assistant' | null;
  timestamp: number;
  score: number;
  canonical: string;
  canonicalSessionId: string;
  canonicalTimestamp: number;
}

/**
 * The score: cover density (how many matches, how close together), divided by 1 + log2 of the
 * document's length (normalization 1), so a word said once in a short turn outranks it said once in
 * a long one, as bm25 would rank them. float8: the exact value a cursor carries back.
 */
const RANK = (vector: string, tsquery: string) => `ts_rank_cd(${vector}, ${tsquery}, 1)::float8`;

/**
 * `hits` (`hitColumns` and `search_vector` of the rows `from` and `where` give) and `scored`
 * (`columns` of hits, and a `score`, higher is better) as WITH clauses. Advanced syntax is ranked by RANK. A query of words
 * is ranked as bm25 weighs them, by rarity: each word's RANK times its inverse document frequency,
 * bm25's `ln(1 + (n − holding + 0.5) / (holding + 0.5))`, summed. The frequencies are counted over
 * the turns under the same filters that hold any of the words (on recall's line: that
 * conversation), turns and compaction summaries apart as SQLite's two indexes keep them, so
 * summaries repeating a word never make it common for the turns. ts_rank_cd alone weighs every word
 * alike, so in a conversation the speakers' names, in most turns and in most questions, counted as
 * much as the rare word that finds the answer (LoCoMo conv-41, recall at 1,000 tokens: 58.2% of the
 * evidence on PostgreSQL against 75.0% on SQLite; 75.6% with the weights).
 */
function scoredTurns(
  expression: Expression,
  tsquery: string,
  select: { hitColumns: string; columns: string; from: string; where: readonly string[]; filters: readonly string[] },
  parameters: Parameters,
): string {
  const hits = `hits AS (SELECT ${select.hitColumns}, t.search_vector ${select.from} WHERE ${select.where.join(' AND ')})`;
  const words = expression.words;
  if (!words || words.length < 2) {
    return `${hits}, scored AS (SELECT ${select.columns}, ${RANK('h.search_vector', tsquery)} AS score FROM hits h)`;
  }
  const list = parameters.add(words);
  // Searching any word, the hits are that population already: no second scan.
  const pool = expression.anyWord
    ? 'SELECT h.turn_type, h.search_vector FROM hits h'
    : 'SELECT t.turn_type, t.search_vector FROM agent_turns t WHERE ' +
      [`t.search_vector @@ nexus_words_tsquery(${list}::text[], true)`, ...select.filters].join(' AND ');
  return (
    `query_words AS (SELECT DISTINCT q FROM unnest(${list}::text[]) AS w (word), ` +
    "plainto_tsquery('english'::regconfig, w.word) AS q WHERE numnode(q) > 0), " +
    `${hits}, ` +
    `pool AS MATERIALIZED (${pool}), ` +
    'weights AS MATERIALIZED (SELECT w.q, p.turn_type, ln(1 + ((SELECT count(*) FROM pool o WHERE o.turn_type = p.turn_type) ' +
    '- count(*) + 0.5)::float8 / (count(*) + 0.5)) AS idf FROM query_words w JOIN pool p ON p.search_vector @@ w.q ' +
    'GROUP BY w.q, p.turn_type), ' +
    // Summed in one order, so a page's cursor meets the same float on the next page.
    `scored AS (SELECT ${select.columns}, (SELECT coalesce(sum(g.idf * ts_rank_cd(h.search_vector, g.q, 1) ORDER BY g.q::text), 0) ` +
    'FROM weights g WHERE g.turn_type = h.turn_type)::float8 AS score FROM hits h)'
  );
}

/**
 * The text ts_headline cuts: its parser takes `<…>` for markup and leaves it out of a headline
 * (`Array<string>` would show as `Array`), so each `<` goes in as a control character that only
 * separates words, and comes back as `<` in the snippet.
 */
const LESS_THAN = '\u0001';
const HEADLINE_TEXT = (column: string) => `translate(coalesce(${column}, ''), '<', chr(1))`;

/** ts_headline's selectors: control characters no text shows, turned into [ ] once the cut is known. */
const START = '\u0002';
const STOP = '\u0003';
const HEADLINE_OPTIONS = `StartSel="${START}", StopSel="${STOP}", MaxWords=16, MinWords=8, HighlightAll=false`;

/**
 * A headline as the store's snippets read: matched words in [brackets], `…` where text was cut
 * (ts_headline cuts without saying so: where the excerpt sits in the text tells).
 */
function snippetOf(headline: string | null, text: string | null): string {
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

/** A float32 bytea as a Float32Array (copied when the driver's buffer is not 4-byte aligned). */
function vectorOf(bytes: Buffer): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Float32Array(Uint8Array.from(bytes).buffer);
}

export function searchQueries(executor: PgExecutor): SearchStore {
  /** The expression a search uses: the first that finds something, else the last (undefined: no match). */
  const chooseExpression = async (
    expressions: Expression[],
    found: (expression: Expression) => Promise<boolean>,
  ): Promise<Expression | undefined> => {
    for (const [index, expression] of expressions.entries()) {
      if (index === expressions.length - 1 || (await found(expression))) return expression;
    }
    return undefined;
  };

  const anyTurnMatch = async (expression: Expression, filters: TurnSearchFilters): Promise<boolean> => {
    const parameters = new Parameters();
    const where = [`t.search_vector @@ ${expression(parameters)}`, ...turnFilters(filters, parameters)];
    const rows = await executor.query(`SELECT 1 FROM agent_turns t WHERE ${where.join(' AND ')} LIMIT 1`, parameters.values);
    return rows.length > 0;
  };

  const rawPage = (expression: Expression, query: TurnSearchQuery, after: KeysetPosition | null, take: number) => {
    const parameters = new Parameters();
    const tsquery = expression(parameters);
    const filters = turnFilters(query.filters ?? {}, parameters);
    const scored = scoredTurns(
      expression,
      tsquery,
      {
        hitColumns: 't.id, t.session_id, t.depth, t.turn_type, t.role, t.timestamp',
        columns: 'h.id, h.session_id, h.depth, h.turn_type, h.role, h.timestamp',
        from: 'FROM agent_turns t',
        where: [`t.search_vector @@ ${tsquery}`, ...filters],
        filters,
      },
      parameters,
    );
    const page = after ? `WHERE ${afterClause(after, 'm.score', 'm.timestamp', 'm.id', parameters)} ` : '';
    const sql =
      `WITH ${scored} SELECT m.id, m.session_id AS "sessionId", m.depth, m.turn_type AS "turnType", m.role, ` +
      'm.timestamp::float8 AS timestamp, m.score, m.id AS canonical, m.session_id AS "canonicalSessionId", ' +
      `m.timestamp::float8 AS "canonicalTimestamp" FROM scored m ${page}` +
      `ORDER BY m.score DESC, m.timestamp, m.id COLLATE "C" LIMIT ${parameters.add(take)}`;
    return executor.query<TurnRow>(sql, parameters.values);
  };

  /**
   * The resolved view in one statement: each match maps to the turn that stands for it — the
   * newest compaction of its line when that compaction covers it (each folds the one before), else
   * the turn itself — and matches are grouped by that turn (DISTINCT ON keeps the group's best
   * match), best score first. Every match is ranked once per page, and a compaction appears on one
   * page only.
   */
  const resolvedPage = (expression: Expression, query: TurnSearchQuery, after: KeysetPosition | null, take: number) => {
    const parameters = new Parameters();
    const canonical = canonicalTurn(query.filters?.scope?.line, query.lineCompaction ?? null, parameters);
    const tsquery = expression(parameters);
    const filters = turnFilters(query.filters ?? {}, parameters);
    const scored = scoredTurns(
      expression,
      tsquery,
      {
        hitColumns: `t.id, t.session_id, t.depth, t.turn_type, t.role, t.timestamp, ${canonical} AS canonical`,
        columns: 'h.id, h.session_id, h.depth, h.turn_type, h.role, h.timestamp, h.canonical',
        from:
          'FROM agent_turns t JOIN agent_sessions s ON s.id = t.session_id ' +
          'LEFT JOIN agent_turns h ON h.id = s.head_turn_id LEFT JOIN agent_turns c ON c.id = h.latest_compaction_id',
        where: [`t.search_vector @@ ${tsquery}`, ...filters],
        filters,
      },
      parameters,
    );
    const page = after ? `WHERE ${afterClause(after, 'b.score', 'b.timestamp', 'b.id', parameters)} ` : '';
    const sql =
      `WITH ${scored}, ` +
      'best AS (SELECT DISTINCT ON (canonical) * FROM scored ORDER BY canonical, score DESC, timestamp, id COLLATE "C") ' +
      'SELECT b.id, b.session_id AS "sessionId", b.depth, b.turn_type AS "turnType", b.role, b.timestamp::float8 AS timestamp, ' +
      'b.score, b.canonical, k.session_id AS "canonicalSessionId", k.timestamp::float8 AS "canonicalTimestamp" ' +
      `FROM best b JOIN agent_turns k ON k.id = b.canonical ${page}` +
      `ORDER BY b.score DESC, b.timestamp, b.id COLLATE "C" LIMIT ${parameters.add(take)}`;
    return executor.query<TurnRow>(sql, parameters.values);
  };

  /** Headlines only for the hits shown: over every match they would cost more than the ranking. */
  const turnSnippets = async (expression: Expression, turnIds: string[]): Promise<Map<string, string>> => {
    const parameters = new Parameters();
    const sql =
      `SELECT t.id, t.search_text AS text, ts_headline('english'::regconfig, ${HEADLINE_TEXT('t.search_text')}, ${expression(parameters)}, ` +
      `${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM agent_turns t WHERE t.id = ANY(${parameters.add(turnIds)}::text[])`;
    const rows = await executor.query<{ id: string; text: string | null; headline: string | null }>(sql, parameters.values);
    return new Map(rows.map((row) => [row.id, snippetOf(row.headline, row.text)]));
  };

  const searchTurns = async (query: TurnSearchQuery): Promise<SearchPage<TurnSearchHit>> => {
    const after = decodeCursor(query.cursor);
    const expression = await chooseExpression(matchExpressions(query.match), (candidate) =>
      anyTurnMatch(candidate, query.filters ?? {}),
    );
    if (expression === undefined) return { hits: [], nextCursor: null };
    const take = query.limit + 1;
    const rows = await (query.view === 'raw'
      ? rawPage(expression, query, after, take)
      : resolvedPage(expression, query, after, take));
    const page = rows.slice(0, query.limit);
    const snippets =
      query.snippets === false || page.length === 0
        ? new Map<string, string>()
        : await turnSnippets(
            expression,
            page.map((row) => row.id),
          );
    const positionOf = (row: TurnRow): KeysetPosition => ({ score: row.score, age: row.timestamp, id: row.id });
    const hits: TurnSearchHit[] = page.map((row) => ({
      turnId: row.id,
      sessionId: row.sessionId,
      depth: row.depth,
      turnType: row.turnType,
      role: row.role,
      timestamp: row.timestamp,
      score: row.score,
      snippet: snippets.get(row.id) ?? '',
      canonicalTurnId: row.canonical,
      canonicalSessionId: row.canonicalSessionId,
      canonicalTimestamp: row.canonicalTimestamp,
      cursor: encodeCursor(positionOf(row)),
    }));
    const last = page.at(-1);
    return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last)) : null };
  };

  const searchEvents = async (query: EventSearchQuery): Promise<SearchPage<EventSearchHit>> => {
    const filters = query.filters ?? {};
    /** The conditions of a match under the filters, and its tsquery's SQL. */
    const matching = (expression: Expression, parameters: Parameters) => {
      const tsquery = expression(parameters);
      const where = [`e.search_vector @@ ${tsquery}`];
      if (filters.channel !== undefined) where.push(`e.channel = ${parameters.add(filters.channel)}`);
      if (filters.author !== undefined) where.push(`e.author = ${parameters.add(filters.author)}`);
      if (filters.kind !== undefined) where.push(`e.kind = ${parameters.add(filters.kind)}`);
      if (filters.since !== undefined) where.push(`e.occurred_at >= ${parameters.add(filters.since)}::bigint`);
      if (filters.until !== undefined) where.push(`e.occurred_at <= ${parameters.add(filters.until)}::bigint`);
      return { tsquery, where };
    };
    const anyEventMatch = async (expression: Expression) => {
      const parameters = new Parameters();
      const { where } = matching(expression, parameters);
      return (await executor.query(`SELECT 1 FROM events e WHERE ${where.join(' AND ')} LIMIT 1`, parameters.values)).length > 0;
    };
    const rankedPage = (expression: Expression, after: KeysetPosition | null, take: number) => {
      const parameters = new Parameters();
      const { tsquery, where } = matching(expression, parameters);
      const score = RANK('e.search_vector', tsquery);
      if (after) where.push(afterClause(after, score, 'e.received_at', 'e.id', parameters));
      const ranked =
        `SELECT ${EVENT_COLUMNS}, ${score} AS score FROM events e WHERE ${where.join(' AND ')} ` +
        `ORDER BY score DESC, e.received_at, e.id COLLATE "C" LIMIT ${parameters.add(take)}`;
      // The headline over the page's rows only (the outer query runs after the LIMIT).
      const sql =
        `SELECT r.*, ts_headline('english'::regconfig, ${HEADLINE_TEXT('r."searchText"')}, ${tsquery}, ` +
        `${parameters.add(HEADLINE_OPTIONS)}) AS headline FROM (${ranked}) r ORDER BY r.score DESC, r."receivedAt", r.id COLLATE "C"`;
      return executor.query<EventSearchHit['event'] & { score: number; headline: string | null }>(sql, parameters.values);
    };
    const after = decodeCursor(query.cursor);
    const expression = await chooseExpression(matchExpressions(query.match), anyEventMatch);
    if (expression === undefined) return { hits: [], nextCursor: null };
    const rows = await rankedPage(expression, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const positionOf = (event: EventSearchHit['event'], score: number): KeysetPosition => ({
      score,
      age: event.receivedAt,
      id: event.id,
    });
    const hits: EventSearchHit[] = page.map(({ score, headline, ...event }) => ({
      event,
      score,
      snippet: snippetOf(headline, event.searchText),
      cursor: encodeCursor(positionOf(event, score)),
    }));
    const last = hits.at(-1);
    return { hits, nextCursor: rows.length > query.limit && last ? encodeCursor(positionOf(last.event, last.score)) : null };
  };

  return {
    searchTurns,
    searchEvents,
    countTurnMatches: async (match) => {
      let found = 0;
      // The same choice as a search: the first expression that matches anything, else the last.
      for (const expression of matchExpressions(match)) {
        const parameters = new Parameters();
        const sql = `SELECT count(*)::float8 AS n FROM agent_turns t WHERE t.search_vector @@ ${expression(parameters)}`;
        found = (await executor.query<{ n: number }>(sql, parameters.values))[0]?.n ?? 0;
        if (found > 0) break;
      }
      return found;
    },
    countTurns: async () => (await executor.query<{ n: number }>('SELECT count(*)::float8 AS n FROM agent_turns'))[0]?.n ?? 0,
    turnsWithoutEmbedding: (model, line) => {
      const parameters = new Parameters();
      const sql =
        'SELECT t.id AS "turnId", t.search_text AS text FROM agent_turns t ' +
        `LEFT JOIN turn_embeddings e ON e.turn_id = t.id AND e.model = ${parameters.add(model)} ` +
        `WHERE t.turn_type = 'normal' AND e.turn_id IS NULL AND ${lineClause(line, parameters)} ORDER BY t.depth`;
      return executor.query<{ turnId: string; text: string | null }>(sql, parameters.values);
    },
    putTurnEmbeddings: async (model, embeddings) => {
      if (embeddings.length === 0) return;
      // One row per turn (the last vector given wins, as a replacement would): ON CONFLICT DO
      // UPDATE cannot touch a row twice in one statement.
      const latest = new Map(embeddings.map((embedding) => [embedding.turnId, embedding.vector]));
      const vectors = [...latest.values()];
      await executor.execute(
        'INSERT INTO turn_embeddings (turn_id, model, dimensions, vector) ' +
          'SELECT turn_id, $1, dimensions, vector FROM unnest($2::text[], $3::int[], $4::bytea[]) AS e (turn_id, dimensions, vector) ' +
          'ON CONFLICT (model, turn_id) DO UPDATE SET dimensions = excluded.dimensions, vector = excluded.vector',
        [
          model,
          [...latest.keys()],
          vectors.map((vector) => vector.length),
          vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)),
        ],
      );
    },
    turnEmbeddingPage: async ({ after, limit }) => {
      const rows =
        after === undefined
          ? await executor.query<{ model: string; turnId: string; vector: Buffer }>(
              'SELECT model, turn_id AS "turnId", vector FROM turn_embeddings ORDER BY model, turn_id LIMIT $1',
              [limit],
            )
          : await executor.query<{ model: string; turnId: string; vector: Buffer }>(
              'SELECT model, turn_id AS "turnId", vector FROM turn_embeddings WHERE (model, turn_id) > ($1, $2) ' +
                'ORDER BY model, turn_id LIMIT $3',
              [after.model, after.turnId, limit],
            );
      return rows.map((row) => ({ model: row.model, turnId: row.turnId, vector: vectorOf(row.vector) }));
    },
    turnEmbeddings: async (model, line) => {
      const parameters = new Parameters();
      const sql =
        'SELECT t.id AS "turnId", t.depth AS depth, e.vector AS vector FROM turn_embeddings e ' +
        `JOIN agent_turns t ON t.id = e.turn_id WHERE e.model = ${parameters.add(model)} AND ${lineClause(line, parameters)}`;
      const rows = await executor.query<{ turnId: string; depth: number; vector: Buffer }>(sql, parameters.values);
      return rows.map((row) => ({ turnId: row.turnId, depth: row.depth, vector: vectorOf(row.vector) }));
    },
  };
}
