// Leases on PostgreSQL: one row per lease in `leases`, taken by one upsert that only overwrites a
// row that expired, is the asker's own, or is the gone holder the asker replaces (the row lock makes
// two askers at once get one answer each).

import type { LeaseStore } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

export function leaseQueries(executor: PgExecutor): LeaseStore {
  return {
    async acquireLease({ name, holder, now, expiresAt, replacing }) {
      const rows = await executor.query<{ holder: string }>(
        'INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3) ' +
          'ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at ' +
          'WHERE leases.expires_at <= $4 OR leases.holder = excluded.holder OR leases.holder = $5 RETURNING holder',
        [name, holder, expiresAt, now, replacing ?? null],
      );
      return rows[0]?.holder === holder;
    },
    async leaseHolder(name) {
      const rows = await executor.query<{ holder: string }>('SELECT holder FROM leases WHERE name = $1', [name]);
      return rows[0]?.holder ?? null;
    },
    async releaseLease({ name, holder }) {
      await executor.execute('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder]);
    },
  };
}
