import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './packages/db/src/sqlite/schema.ts',
  out: './packages/db/drizzle',
});
