// The turns' hash chains on PostgreSQL: every turn with its parent's stored hash and its cited
// events, paged on the unique (session_id, depth) index, and every session's head with its own
// turns' extent. What doctor's chain check and a checkpoint read; nothing here decides what is wrong.

import type { HashedTurnRow, SessionHeadRow, TurnChainStore, TurnRecord } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';
import { TURN_FIELDS } from './turn-queries.ts';

/** A turn's columns, its parent's hash and place, and its cited events (sorted). */
export const HASHED_TURN_COLUMNS =
  `${TURN_FIELDS}, p.hash AS "parentHash", (p.id IS NOT NULL) AS "parentFound", p.session_id AS "parentSessionId", ` +
  'p.depth AS "parentDepth", ' +
  'ARRAY(SELECT e.event_id FROM turn_events e WHERE e.turn_id = t.id ORDER BY e.event_id) AS "eventIds"';

type HashedRow = TurnRecord & Omit<HashedTurnRow, 'turn'>;

export function hashedTurnFromRow(row: HashedRow): HashedTurnRow {
  const { parentHash, parentFound, parentSessionId, parentDepth, eventIds, ...turn } = row;
  turn.content ??= null;
  turn.metadata ??= null;
  return { turn, parentHash, parentFound, parentSessionId, parentDepth, eventIds };
}

const HASHED_TURNS =
  `SELECT ${HASHED_TURN_COLUMNS} FROM agent_turns t LEFT JOIN agent_turns p ON p.id = t.parent_turn_id ` +
  'WHERE (t.session_id, t.depth) > ($1, $2) ORDER BY t.session_id, t.depth LIMIT $3';

const SESSION_HEADS =
  'SELECT s.id AS "sessionId", s.head_turn_id AS "headTurnId", s.forked_from_turn_id AS "forkedFromTurnId", ' +
  'h.id AS "headFound", h.session_id AS "headSessionId", h.depth AS "headDepth", h.hash AS "headHash", ' +
  '(SELECT count(*)::int FROM agent_turns o WHERE o.session_id = s.id) AS "ownTurns", ' +
  '(SELECT max(o.depth) FROM agent_turns o WHERE o.session_id = s.id) AS "deepestOwnDepth" ' +
  'FROM agent_sessions s LEFT JOIN agent_turns h ON h.id = s.head_turn_id WHERE s.id > $1 ORDER BY s.id LIMIT $2';

interface SessionHeadQueryRow {
  sessionId: string;
  headTurnId: string | null;
  forkedFromTurnId: string | null;
  headFound: string | null;
  headSessionId: string | null;
  headDepth: number | null;
  headHash: string | null;
  ownTurns: number;
  deepestOwnDepth: number | null;
}

export function turnChainQueries(executor: PgExecutor): TurnChainStore {
  return {
    async hashedTurns({ after, limit }) {
      const rows = await executor.query<HashedRow>(HASHED_TURNS, [after?.sessionId ?? '', after?.depth ?? -1, limit]);
      return rows.map(hashedTurnFromRow);
    },
    async sessionHeads({ afterId, limit }) {
      const rows = await executor.query<SessionHeadQueryRow>(SESSION_HEADS, [afterId ?? '', limit]);
      return rows.map(
        (row): SessionHeadRow => ({
          sessionId: row.sessionId,
          headTurnId: row.headTurnId,
          forkedFromTurnId: row.forkedFromTurnId,
          head:
            row.headFound === null
              ? null
              : { sessionId: row.headSessionId as string, depth: row.headDepth as number, hash: row.headHash },
          ownTurns: row.ownTurns,
          deepestOwnDepth: row.deepestOwnDepth,
        }),
      );
    },
  };
}
