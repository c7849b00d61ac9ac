// What a CLI command is: its name, its help, its options and what it does. Commands return data;
// the runner prints it as JSON with --json, or calls the command's own text renderer.

import type { AgentsLedger, AgentsLedgerOptions } from '@agent-ledger/agents-ledger';
import type { EventsLedger } from '@agent-ledger/events-ledger';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  description: string;
  /** Shown in help as the value's name: `--budget N`. */
  valueName?: string;
  multiple?: boolean;
}

export interface CommandIo {
  /** Writes a line to stdout (suppressed with --json: the returned data is printed instead). */
  print(line?: string): void;
  /** Writes progress to stderr, only when stderr is a terminal. */
  progress(line: string): void;
  /** Writes to stdout as is, in either mode: for commands that stream their JSON. */
  write(text: string): void;
  json: boolean;
  /** Exit with this code after the output is written (a partial success, a failed check). */
  setExitCode(code: number): void;
  stdin: NodeJS.ReadableStream;
}

/** Returned by a command that already wrote its JSON output itself. */
export const ALREADY_WRITTEN = Symbol('already written');

export interface CommandInput {
  positionals: string[];
  options: Record<string, string | boolean | string[] | undefined>;
  io: CommandIo;
  /** Opens the ledger at --db (created and migrated if missing); options apply to the first call. */
  openLedger(options?: Omit<AgentsLedgerOptions, 'store'>): AgentsLedger;
  /** The events ledger in the same file (the same store as openLedger's). */
  openEventsLedger(): EventsLedger;
  dbPath: string;
  /** True when --db was given on the command line (not defaulted, not from $NEXUS_DB). */
  dbPathGiven: boolean;
  /** `nexus <words>` as a hint to paste: with `--db PATH` when the user gave one. */
  commandLine(words: string): string;
  /** The environment (ANTHROPIC_API_KEY and friends), passed in so tests can set it per run. */
  env: Record<string, string | undefined>;
}

export interface Command {
  /** Words that select it: ['session', 'create']. */
  path: string[];
  summary: string;
  /** Positional arguments as shown in usage: ['<sessionId>']. */
  arguments: string[];
  options: Record<string, OptionSpec>;
  /** A paragraph of detail for --help. */
  details?: string;
  /**
   * True for a command that never writes: it refuses a --db that does not exist (a typo must not
   * create an empty ledger that then answers "no match") and opens the file read-only.
   */
  readsOnly?: boolean;
  run(input: CommandInput): Promise<unknown>;
}
