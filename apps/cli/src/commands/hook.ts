// `nexus hook <tool> <event>` in the command table, for `nexus --help` and the docs' command check.
// main.ts runs it before any option parsing (hooks/run-hook.ts): a hook must never exit 2.

import type { Command } from '../command.ts';

export const hookCommand: Command = {
  path: ['hook'],
  summary: 'Run as a Claude Code or Codex hook: import the session live, give back what its compaction dropped.',
  arguments: ['<claude-code|codex>', '<event>'],
  options: {
    'max-chars': { type: 'string', description: "the most a prompt's recall may add", valueName: 'N' },
    log: { type: 'string', description: 'the hooks log (default ~/.nexus/hooks.log)', valueName: 'FILE' },
  },
  details: 'Written into the tools’ settings by `nexus hooks install`; see `nexus hook --help` and docs/claude-code.md.',
  run: async () => {
    throw new Error('nexus hook is run by main.ts before the command table');
  },
};
