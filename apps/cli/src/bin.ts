#!/usr/bin/env node
// The `nexus` executable: the entry the build bundles (scripts/build-cli.mjs → dist/bin/nexus.js).
// It loads only the argument parser and the command table; each command loads what it needs when
// it runs, so `nexus --help` starts in about the time of a bare `node`.

import { main } from './main.ts';

// `npm run nexus …` runs from the repository root; npm (like pnpm) passes the directory the user
// called it from as INIT_CWD. Move there so relative paths and ./nexus.db mean what they say.
if (process.env.npm_lifecycle_event === 'nexus' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
// `nexus history … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const code = await main(process.argv.slice(2));
// A hook is done when it has answered: nothing it started may keep the agent waiting (an import it
// gave up on resumes next time; each write is a transaction, so stopping it loses nothing).
if (process.argv[2] === 'hook') process.stdout.write('', () => process.exit(code));
else process.exitCode = code;
