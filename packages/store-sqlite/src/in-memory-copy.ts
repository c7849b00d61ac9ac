// A private, writable in-memory copy of what a connection reads (its WAL included), for checks that
// SQLite runs only on a connection that may write, on a file this process may not write. It costs
// memory the size of the file for as long as the copy is open.

import Database from 'better-sqlite3';

export function inMemoryCopy(source: Database.Database): Database.Database {
  const image = source.serialize();
  // An in-memory database has no WAL: the copy's header says rollback journal, or SQLite refuses it.
  image[18] = 1;
  image[19] = 1;
  return new Database(image);
}
