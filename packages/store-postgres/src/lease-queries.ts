// Leases on PostgreSQL: one row per lease in `leases`, taken by one upsert that only overwrites a
// row that expired or is the asker's own (the row lock makes two askers at once get one answer each).

import type { LeaseStore } from '@agent-ledger/store';
import type { PgExecutor } from './pg-executor.ts';

export function leaseQueries(executor: PgExecutor): LeaseStore {
  return {
    async acquireLease({ name, holder, now, expiresAt }) {
      const rows = await executor.query<{ holder: string }>(
        'INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3) ' +
          'ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at ' +
          'WHERE leases.expires_at <= $4 OR leases.holder = excluded.holder RETURNING holder',
        [name, holder, expiresAt, now],
      );
      return rows[0]?.holder === holder;
    },
    async releaseLease({ name, holder }) {
      await executor.execute('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder]);
    },
  };
}
