// Leases on SQLite: one row per lease in `leases`, taken by one upsert that only overwrites a row
// that expired or is the asker's own, so two processes asking at once get one answer each.

import type { LeaseStore } from '@agent-ledger/store';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function leaseQueries(connection: SqliteConnection): Synchronous<LeaseStore> {
  const { statement } = connection;
  return {
    acquireLease: ({ name, holder, now, expiresAt }) => {
      const row = statement(
        'INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ' +
          'ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at ' +
          'WHERE leases.expires_at <= ? OR leases.holder = excluded.holder RETURNING holder',
      ).get(name, holder, expiresAt, now) as { holder: string } | undefined;
      return row?.holder === holder;
    },
    releaseLease: ({ name, holder }) => {
      statement('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
    },
  };
}
