import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/postgres/schema.ts',
  out: './packages/db/drizzle-postgres',
});
