// The `nexus` entry point: picks the command, opens the ledger, prints the result, and turns
// errors into one line on stderr (and an error object on stdout with --json) and an exit code.

import { LedgerError } from '@agent-ledger/core';
import manifest from '../package.json' with { type: 'json' };
import {
  commandGroups,
  commandHelp,
  findCommand,
  generalHelp,
  groupHelp,
  parseCommandArguments,
  requirePositionals,
  UsageError,
} from './arguments.ts';
import { commandLine, hoistGlobalOptions, messageForCli } from './cli-conventions.ts';
import { ALREADY_WRITTEN, type Command, type CommandIo } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import type { MainIo } from './main-io.ts';
import type { CommandLedgers, LedgerUse } from './open-ledgers.ts';
import { closest } from './suggest.ts';

/** The CLI's version: the package's, as npm installed it. */
export const VERSION: string = manifest.version;

export type { MainIo } from './main-io.ts';

const processIo: MainIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  stderrIsTerminal: Boolean(process.stderr.isTTY),
  env: process.env,
};

/** Runs one command line; resolves with the exit code (0 ok, 1 failed, 2 bad usage). */
export async function main(givenArgv: string[], io: MainIo = processIo): Promise<number> {
  // A coding agent's hook: its own runner, which never fails the agent (exit 0 whatever happens).
  if (givenArgv[0] === 'hook') {
    const { runHook } = await import('./hooks/run-hook.ts');
    return runHook(givenArgv.slice(1), io);
  }
  const argv = hoistGlobalOptions(givenArgv);
  const wantsJson = argv.includes('--json');
  if (argv[0] === '--version' || argv[0] === '-v' || (argv[0] === 'version' && argv.length === 1)) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const found = findCommand(COMMANDS, argv);
  if (!found) return withoutCommand(argv, io, wantsJson);
  const { command, rest } = found;
  let ledgers: CommandLedgers | null = null;
  let exitCode = 0;
  let database = { path: io.env.NEXUS_DB ?? './nexus.db', given: false };
  try {
    const { positionals, options } = parseCommandArguments(command, rest);
    if (options.help) {
      io.stdout(`${commandHelp(command)}\n`);
      return 0;
    }
    requirePositionals(command, positionals);
    const json = options.json === true;
    const dbPath = (typeof options.db === 'string' ? options.db : undefined) ?? io.env.NEXUS_DB ?? './nexus.db';
    database = { path: dbPath, given: typeof options.db === 'string' };
    // Loaded only now: help and usage mistakes never load a ledger (or its engine).
    const { commandLedgers, ledgerOpening } = await import('./open-ledgers.ts');
    // A command that only reads never creates a ledger (a typo would give an empty one that answers
    // "ok" and "no match") and never writes to the file; a write refuses a file that is not a
    // healthy ledger. Decided when the command opens the ledger, so a usage mistake is still
    // reported as one, and a command that never opens it (`hooks install`) is not refused.
    const opened = commandLedgers(dbPath, () => ledgerOpening(dbPath, ledgerUse(command)));
    ledgers = opened;
    const commandIo: CommandIo = {
      print: (line = '') => {
        if (!json) io.stdout(`${line}\n`);
      },
      progress: (line) => {
        if (io.stderrIsTerminal) io.stderr(`\r${line}`);
      },
      write: (text) => io.stdout(text),
      setExitCode: (code) => {
        exitCode = code;
      },
      json,
      stdin: io.stdin,
    };
    const result = await command.run({
      positionals,
      options,
      io: commandIo,
      dbPath,
      dbPathGiven: typeof options.db === 'string',
      commandLine: (words) => commandLine(words, database),
      env: io.env,
      openLedger: (ledgerOptions) => opened.agents(ledgerOptions),
      openEventsLedger: () => opened.events(),
    });
    if (json && result !== ALREADY_WRITTEN) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return exitCode;
  } catch (error) {
    return fail(io, error, { json: wantsJson, database, flags: Object.keys(command.options) });
  } finally {
    await (ledgers as CommandLedgers | null)?.close();
  }
}

/**
 * A command line that names no command: the general help (asked for, or nothing but global
 * options), a group's subcommands (`nexus session`), or an unknown command, with the one meant when
 * it is a typo. Help that was asked for exits 0; anything else is a usage mistake (2).
 */
function withoutCommand(argv: string[], io: MainIo, wantsJson: boolean): number {
  // The words a person typed as a command: those before the first option (an option's value is not one).
  const firstOption = argv.findIndex((word) => word.startsWith('-'));
  const words = firstOption < 0 ? argv : argv.slice(0, firstOption);
  const helpAsked = argv.includes('--help') || argv.includes('-h');
  if (argv.length === 0 || (words.length === 0 && helpAsked) || (words.length === 1 && words[0] === 'help')) {
    io.stdout(`${generalHelp(COMMANDS)}\n`);
    return 0;
  }
  if (words.length === 0) {
    io.stdout(`${generalHelp(COMMANDS)}\n`);
    return 2;
  }
  const groups = commandGroups(COMMANDS);
  const [first, second] = words as [string, string | undefined];
  if (groups.includes(first) && second === undefined) {
    io.stdout(`${groupHelp(COMMANDS, first)}\n`);
    return 0;
  }
  const known = COMMANDS.map((command) => command.path.join(' '));
  const inGroup = groups.includes(first);
  // The command as typed: a group's first two words, else the first (the rest are its arguments).
  const typed = inGroup ? `${first} ${second}` : first;
  const meant = inGroup
    ? closest(
        typed,
        known.filter((path) => path.startsWith(`${first} `)),
      )
    : closest(first, known);
  const hint = meant ? ` Did you mean \`nexus ${meant}\`?` : '';
  const list = inGroup ? `\`nexus ${first}\` lists its subcommands` : '`nexus --help` lists the commands';
  return fail(io, new UsageError(`unknown command "${typed}".${hint} ${list}.`), { json: wantsJson });
}

/** Commands that only read but run FTS5's integrity-check, which needs a connection that may write. */
const CHECKS_SEARCH_INDEXES = new Set(['doctor']);

function ledgerUse(command: Command): LedgerUse {
  if (!command.readsOnly) return 'write';
  return CHECKS_SEARCH_INDEXES.has(command.path.join(' ')) ? 'check' : 'read';
}

/** How a failure is reported: as JSON too, and in the terms of the command that failed. */
interface FailureReport {
  json: boolean;
  /** The ledger file the command used, named in the hints of the message. */
  database?: { path: string; given: boolean };
  /** The command's option names: a setting's field is then called by its flag. */
  flags?: readonly string[];
}

function fail(
  io: MainIo,
  error: unknown,
  { json, database = { path: './nexus.db', given: false }, flags = [] }: FailureReport,
): number {
  if (LedgerError.isInstance(error)) {
    const message = messageForCli(error, database, flags);
    io.stderr(`nexus: ${message}\n`);
    if (json) io.stdout(`${JSON.stringify({ error: { code: error.code, message } }, null, 2)}\n`);
    return UsageError.isInstance(error) ? 2 : 1;
  }
  // Not a user error: say so plainly, and show the stack only when asked.
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`nexus: internal error: ${message}\n`);
  if (io.env.NEXUS_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  if (json) io.stdout(`${JSON.stringify({ error: { code: 'INTERNAL', message } }, null, 2)}\n`);
  return 1;
}
