#!/usr/bin/env node
// The installed `nexus` binary: runs the TypeScript sources through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
// `nexus history … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
