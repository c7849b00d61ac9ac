// `nexus demo`: replays the conversation that ships with the CLI, compacts it several times, forks
// it, and shows everything (the work is in demo/run-demo.ts, loaded when the command runs).

import type { Command } from '../command.ts';

export const demo: Command = {
  path: ['demo'],
  summary: 'Replay the bundled conversation, compact it several times, fork it, and show everything.',
  arguments: [],
  options: {
    budget: { type: 'string', description: 'token budget of the context shown (default 900)', valueName: 'N' },
  },
  details:
    'Writes a fresh database: ./nexus-demo.db unless --db names another ($NEXUS_DB is ignored). ' +
    'It replaces an earlier demo database but refuses to touch one holding anything else.',
  run: async (input) => (await import('../demo/run-demo.ts')).runDemoCommand(input),
};
