import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One PostgreSQL server per run for the PostgreSQL suite (skipped, with a line saying so, where
    // none is installed), and the CLI built once for the tests that run it as a process.
    globalSetup: ['packages/store-postgres/test/postgres/global-setup.ts', 'scripts/build-cli-setup.ts'],
  },
});
