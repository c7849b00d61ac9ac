// The `nexus` entry point: picks the command, opens the ledger, prints the result, and turns
// errors into one line on stderr (and an error object on stdout with --json) and an exit code.

import { type AgentsLedger, openAgentsLedger } from '@nexus/agents-ledger';
import { LedgerError } from '@nexus/core';
import { openDatabase } from '@nexus/db';
import { createEventsLedger, type EventsLedger } from '@nexus/events-ledger';
import { commandHelp, findCommand, generalHelp, parseCommandArguments, requirePositionals, UsageError } from './arguments.ts';
import { ALREADY_WRITTEN, type CommandIo } from './command.ts';
import { COMMANDS } from './commands/index.ts';

export interface MainIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  stderrIsTerminal: boolean;
  env: Record<string, string | undefined>;
}

const processIo: MainIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: process.stdin,
  stderrIsTerminal: Boolean(process.stderr.isTTY),
  env: process.env,
};

/** Runs one command line; resolves with the exit code (0 ok, 1 failed, 2 bad usage). */
export async function main(argv: string[], io: MainIo = processIo): Promise<number> {
  const wantsJson = argv.includes('--json');
  const found = findCommand(COMMANDS, argv);
  if (!found) {
    const helpAsked = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
    if (helpAsked) {
      io.stdout(`${generalHelp(COMMANDS)}\n`);
      return 0;
    }
    return fail(
      io,
      wantsJson,
      new UsageError(`unknown command "${argv.filter((word) => !word.startsWith('-')).join(' ')}". Run \`nexus --help\`.`),
    );
  }
  const { command, rest } = found;
  let ledger: AgentsLedger | null = null;
  let events: EventsLedger | null = null;
  let exitCode = 0;
  try {
    const { positionals, options } = parseCommandArguments(command, rest);
    if (options.help) {
      io.stdout(`${commandHelp(command)}\n`);
      return 0;
    }
    requirePositionals(command, positionals);
    const json = options.json === true;
    const dbPath = (typeof options.db === 'string' ? options.db : undefined) ?? io.env.NEXUS_DB ?? './nexus.db';
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
      env: io.env,
      openLedger: (ledgerOptions) => {
        ledger ??= openAgentsLedger(dbPath, ledgerOptions);
        return ledger;
      },
      openEventsLedger: () => {
        events ??= createEventsLedger({ database: openDatabase({ path: dbPath }) });
        return events;
      },
    });
    if (json && result !== ALREADY_WRITTEN) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return exitCode;
  } catch (error) {
    return fail(io, wantsJson, error);
  } finally {
    (ledger as AgentsLedger | null)?.close();
    (events as EventsLedger | null)?.close();
  }
}

function fail(io: MainIo, json: boolean, error: unknown): number {
  if (LedgerError.isInstance(error)) {
    io.stderr(`nexus: ${error.message}\n`);
    if (json) io.stdout(`${JSON.stringify({ error: { code: error.code, message: error.message } }, null, 2)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  // Not a user error: say so plainly, and show the stack only when asked.
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`nexus: internal error: ${message}\n`);
  if (io.env.NEXUS_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  if (json) io.stdout(`${JSON.stringify({ error: { code: 'INTERNAL', message } }, null, 2)}\n`);
  return 1;
}
