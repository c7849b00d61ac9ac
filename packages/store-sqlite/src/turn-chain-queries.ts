// The turns' hash chains on SQLite: every turn with its parent's stored hash and its cited events,
// paged on the unique (session_id, depth) index, and every session's head with its own turns'
// extent. What doctor's chain check and a checkpoint read; nothing here decides what is wrong.

import type { HashedTurnRow, SessionHeadRow, TurnChainStore, TurnRecord } from '@agent-ledger/store';
import { parseJson, type SqliteConnection, type Synchronous } from './sqlite-connection.ts';
import { TURN_FIELDS } from './turn-queries.ts';

/** A turn's columns, its parent's hash and place, and its cited events (a JSON array, sorted). */
export const HASHED_TURN_COLUMNS =
  `${TURN_FIELDS}, p.hash AS parentHash, (p.id IS NOT NULL) AS parentFound, p.session_id AS parentSessionId, ` +
  'p.depth AS parentDepth, ' +
  '(SELECT json_group_array(event_id) FROM (SELECT e.event_id FROM turn_events e WHERE e.turn_id = t.id ORDER BY e.event_id)) AS eventIds';

type RawRow = Record<string, unknown>;

export function hashedTurnFromRow(row: RawRow): HashedTurnRow {
  const { parentHash, parentFound, parentSessionId, parentDepth, eventIds, ...turn } = row;
  turn.content = parseJson(turn.content);
  turn.metadata = parseJson(turn.metadata);
  return {
    turn: turn as unknown as TurnRecord,
    parentHash: (parentHash as string | null) ?? null,
    parentFound: parentFound === 1,
    parentSessionId: (parentSessionId as string | null) ?? null,
    parentDepth: (parentDepth as number | null) ?? null,
    eventIds: JSON.parse(eventIds as string) as string[],
  };
}

export function turnChainQueries({ statement }: SqliteConnection): Synchronous<TurnChainStore> {
  return {
    hashedTurns: ({ after, limit }) =>
      (
        statement(
          `SELECT ${HASHED_TURN_COLUMNS} FROM agent_turns t LEFT JOIN agent_turns p ON p.id = t.parent_turn_id ` +
            'WHERE (t.session_id, t.depth) > (?, ?) ORDER BY t.session_id, t.depth LIMIT ?',
        ).all(after?.sessionId ?? '', after?.depth ?? -1, limit) as RawRow[]
      ).map(hashedTurnFromRow),
    sessionHeads: ({ afterId, limit }) =>
      (
        statement(
          'SELECT s.id AS sessionId, s.head_turn_id AS headTurnId, s.forked_from_turn_id AS forkedFromTurnId, ' +
            'h.id AS headFound, h.session_id AS headSessionId, h.depth AS headDepth, h.hash AS headHash, ' +
            '(SELECT count(*) FROM agent_turns o WHERE o.session_id = s.id) AS ownTurns, ' +
            '(SELECT max(o.depth) FROM agent_turns o WHERE o.session_id = s.id) AS deepestOwnDepth ' +
            'FROM agent_sessions s LEFT JOIN agent_turns h ON h.id = s.head_turn_id WHERE s.id > ? ORDER BY s.id LIMIT ?',
        ).all(afterId ?? '', limit) as RawRow[]
      ).map(sessionHeadFromRow),
  };
}

function sessionHeadFromRow(row: RawRow): SessionHeadRow {
  return {
    sessionId: row.sessionId as string,
    headTurnId: (row.headTurnId as string | null) ?? null,
    forkedFromTurnId: (row.forkedFromTurnId as string | null) ?? null,
    head:
      row.headFound === null
        ? null
        : {
            sessionId: row.headSessionId as string,
            depth: row.headDepth as number,
            hash: (row.headHash as string | null) ?? null,
          },
    ownTurns: row.ownTurns as number,
    deepestOwnDepth: (row.deepestOwnDepth as number | null) ?? null,
  };
}
