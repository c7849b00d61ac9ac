import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './packages/store-sqlite/src/schema.ts',
  out: './packages/store-sqlite/drizzle-sqlite',
});
