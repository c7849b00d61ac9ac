// The append baseline: equivalent rows written with a plain better-sqlite3 prepared INSERT into a minimal table, same pragmas as the ledger.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { AppendTurnInput } from '../../packages/agents-ledger/src/index.ts';
import { countContentTokens, estimateTokenCounter, generateId, toContentBlocks } from '../../packages/core/src/index.ts';

// better-sqlite3 is a dependency of @nexus/db, not of the workspace root: load it from there.
const requireFromDatabasePackage = createRequire(new URL('../../packages/db/package.json', import.meta.url));
const Database = requireFromDatabasePackage('better-sqlite3') as typeof BetterSqlite3;

export interface RawTurnStore {
  /** One row in its own IMMEDIATE transaction. */
  appendOne(input: AppendTurnInput): void;
  /** Every row in one IMMEDIATE transaction. */
  appendMany(inputs: readonly AppendTurnInput[]): void;
  close(): void;
}

export function openRawTurnStore(path: string): RawTurnStore {
  const sqlite = new Database(path);
  // The pragmas of packages/db/src/open-database.ts.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.exec(`CREATE TABLE turns (
    id TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL,
    parent_id TEXT,
    depth INTEGER NOT NULL,
    content TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    timestamp INTEGER NOT NULL
  )`);
  const insert = sqlite.prepare(
    'INSERT INTO turns (id, session_id, parent_id, depth, content, token_count, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const sessionId = generateId('session');
  let parentId: string | null = null;
  let depth = -1;
  // The same per-row work a store must do whatever its design: an id, the JSON, a token count.
  const insertRow = (input: AppendTurnInput): void => {
    const content = toContentBlocks(input.content);
    const id = generateId('turn');
    depth += 1;
    insert.run(
      id,
      sessionId,
      parentId,
      depth,
      JSON.stringify(content),
      countContentTokens(estimateTokenCounter, content),
      input.timestamp ?? Date.now(),
    );
    parentId = id;
  };
  const appendOne = sqlite.transaction(insertRow);
  const appendMany = sqlite.transaction((inputs: readonly AppendTurnInput[]) => {
    for (const input of inputs) insertRow(input);
  });
  return {
    appendOne: (input) => appendOne.immediate(input),
    appendMany: (inputs) => appendMany.immediate(inputs),
    close: () => sqlite.close(),
  };
}
