#!/usr/bin/env node
// The installed `nexus` binary: runs the TypeScript sources through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
// `pnpm nexus …` runs this script from the repository root; pnpm (like npm) passes the directory the
// user called it from as INIT_CWD. Move there so relative paths and ./nexus.db mean what they say.
if (process.env.npm_lifecycle_event === 'nexus' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
// `nexus history … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
