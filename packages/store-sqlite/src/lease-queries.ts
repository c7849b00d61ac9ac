// Leases on SQLite: one row per lease in `leases`, taken by one upsert that only overwrites a row
// that expired, is the asker's own, or is the gone holder the asker replaces, so two processes asking
// at once get one answer each.

import type { LeaseStore } from '@agent-ledger/store';
import type { SqliteConnection, Synchronous } from './sqlite-connection.ts';

export function leaseQueries(connection: SqliteConnection): Synchronous<LeaseStore> {
  const { statement } = connection;
  return {
    acquireLease: ({ name, holder, now, expiresAt, replacing }) => {
      const row = statement(
        'INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) ' +
          'ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at ' +
          'WHERE leases.expires_at <= ? OR leases.holder = excluded.holder OR leases.holder = ? RETURNING holder',
      ).get(name, holder, expiresAt, now, replacing ?? null) as { holder: string } | undefined;
      return row?.holder === holder;
    },
    leaseHolder: (name) => {
      const row = statement('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string } | undefined;
      return row?.holder ?? null;
    },
    releaseLease: ({ name, holder }) => {
      statement('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
    },
  };
}
