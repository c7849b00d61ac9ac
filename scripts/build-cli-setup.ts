// vitest global setup: builds `nexus` once per run (scripts/build-cli.mjs, about half a second), so
// tests that start the CLI as a process run the bundle users install, not the TypeScript sources.
// In-process tests (run-cli.ts) call main() from the sources.

import { buildCli } from './build-cli.mjs';

export default async function setup(): Promise<void> {
  await buildCli();
}
