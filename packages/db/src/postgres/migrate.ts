// PostgreSQL: placeholder, filled in with the schema work (migrations under an advisory lock).
import type pg from 'pg';

export async function migratePostgres(
  _pool: pg.Pool,
  _options: { readonly: boolean; mustExist: boolean; location: string },
): Promise<void> {}
