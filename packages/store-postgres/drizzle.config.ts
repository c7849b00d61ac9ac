import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/store-postgres/src/schema.ts',
  out: './packages/store-postgres/drizzle-postgres',
});
