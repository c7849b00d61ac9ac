// An INSERT for every column of a table, prepared once per connection, with the column list and
// value encoding taken from the drizzle schema (one definition of each table). Hot write paths use
// it: building a statement through the query builder on every call cost more than the write.

import type Database from 'better-sqlite3';
import { getTableColumns, getTableName, type Table } from 'drizzle-orm';

export function preparedInsert<Row extends Record<string, unknown>>(sqlite: Database.Database, table: Table): (row: Row) => void {
  const columns = Object.entries(getTableColumns(table));
  const statement = sqlite.prepare(
    `INSERT INTO "${getTableName(table)}" (${columns.map(([, column]) => `"${column.name}"`).join(', ')}) ` +
      `VALUES (${columns.map(() => '?').join(', ')})`,
  );
  return (row) => {
    statement.run(
      columns.map(([key, column]) => {
        const value = row[key];
        return value === null || value === undefined ? null : column.mapToDriverValue(value);
      }),
    );
  };
}
