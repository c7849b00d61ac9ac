// The append baselines: equivalent rows written with a plain better-sqlite3 prepared INSERT into a minimal table, same pragmas
// as the ledger. With `fullText`, the table also has a search_text column (the message text, NFKC, as the ledger indexes it)
// and the ledger's FTS5 index over it (same tokenizer, external content, filled by an AFTER INSERT trigger): what full-text
// search alone costs the engine, so the gap between that baseline and the ledger is the ledger's own work.

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { AppendTurnInput } from '../../packages/agents-ledger/src/index.ts';
import {
  contentText,
  countContentTokens,
  estimateTokenCounter,
  generateId,
  toContentBlocks,
} from '../../packages/core/src/index.ts';

// better-sqlite3 is a dependency of @agent-ledger/store-sqlite, not of the workspace root: load it from there.
const requireFromDatabasePackage = createRequire(new URL('../../packages/store-sqlite/package.json', import.meta.url));
const Database = requireFromDatabasePackage('better-sqlite3') as typeof BetterSqlite3;

export interface RawTurnStore {
  /** One row in its own IMMEDIATE transaction. */
  appendOne(input: AppendTurnInput): void;
  /** Every row in one IMMEDIATE transaction. */
  appendMany(inputs: readonly AppendTurnInput[]): void;
  close(): void;
}

export interface RawTurnStoreOptions {
  /** The ledger's search_text column and FTS5 index too. */
  fullText?: boolean;
}

const FULL_TEXT = `
  CREATE VIRTUAL TABLE turns_fts USING fts5(search_text, content = 'turns', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2');
  CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN
    INSERT INTO turns_fts (rowid, search_text) VALUES (NEW.rowid, NEW.search_text);
  END;`;

export function openRawTurnStore(path: string, options: RawTurnStoreOptions = {}): RawTurnStore {
  const fullText = options.fullText ?? false;
  const sqlite = new Database(path);
  // The pragmas of packages/store-sqlite/src/open-database.ts.
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
    timestamp INTEGER NOT NULL${fullText ? ',\n    search_text TEXT' : ''}
  )`);
  if (fullText) sqlite.exec(FULL_TEXT);
  const insert = sqlite.prepare(
    fullText
      ? 'INSERT INTO turns (id, session_id, parent_id, depth, content, token_count, timestamp, search_text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'
      : 'INSERT INTO turns (id, session_id, parent_id, depth, content, token_count, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
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
      ...(fullText ? [contentText(content).normalize('NFKC')] : []),
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
