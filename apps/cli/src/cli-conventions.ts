// The CLI's conventions, in one place: global options go before or after the command words, every
// hint the CLI prints is a command that works when pasted (with the --db the user gave), and an
// error speaks of the flags a person types, not the library's field names.

import { InvalidInputError, type LedgerError } from '@agent-ledger/core';
import { displayLocation } from '@agent-ledger/store';
import { GLOBAL_OPTIONS } from './arguments.ts';

/**
 * Moves global options written before the command words (`nexus --db x.db search foo`) behind
 * them, where the command's parser reads them; anything else stays where it was.
 */
export function hoistGlobalOptions(argv: readonly string[]): string[] {
  const hoisted: string[] = [];
  let index = 0;
  while (index < argv.length) {
    const word = argv[index] as string;
    const name = globalOptionName(word);
    if (name === null) break;
    hoisted.push(word);
    const takesValue = GLOBAL_OPTIONS[name]?.type === 'string' && !word.includes('=');
    if (takesValue && index + 1 < argv.length) hoisted.push(argv[index + 1] as string);
    index += takesValue ? 2 : 1;
  }
  if (index === 0 || index >= argv.length) return [...argv];
  return [...argv.slice(index), ...hoisted];
}

function globalOptionName(word: string): string | null {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=')[0] as string;
    return name in GLOBAL_OPTIONS ? name : null;
  }
  const short = Object.entries(GLOBAL_OPTIONS).find(([, spec]) => spec.short && `-${spec.short}` === word);
  return short ? short[0] : null;
}

/** `nexus <words>`, with `--db PATH` when the user named a database, quoted for a POSIX shell. */
export function commandLine(words: string, database: { path: string; given: boolean }): string {
  if (!database.given || /--db\b/.test(words)) return `nexus ${words}`;
  // A URL's password never goes into a message: the hint shows it as *** (put it back to paste).
  return `nexus ${words} --db ${shellQuote(displayLocation(database.path))}`;
}

/** A word as a POSIX shell reads it back: as is when safe, else in single quotes. */
export function shellQuote(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** Every `nexus …` hint in backticks gets the --db the user gave, so pasting it reads the same ledger. */
export function withDatabaseInHints(message: string, database: { path: string; given: boolean }): string {
  if (!database.given) return message;
  return message.replace(/`nexus ([^`]+)`/g, (_whole, words: string) => `\`${commandLine(words, database)}\``);
}

/** The flags behind the library's session setting names, as `nexus session create --help` lists them. */
const SETTING_FLAGS: Record<string, string> = {
  contextWindow: '--context-window',
  reserveTokens: '--reserve',
  keepRecentTokens: '--keep',
};

/** An error's message as a CLI user should read it. */
export function messageForCli(error: LedgerError, database: { path: string; given: boolean }, flags: readonly string[]): string {
  let message = error.message;
  if (error instanceof InvalidInputError) {
    for (const [field, flag] of Object.entries(SETTING_FLAGS)) {
      if (flags.includes(flag.slice(2))) message = message.replace(new RegExp(`\\b${field}\\b`, 'g'), flag);
    }
  }
  return withDatabaseInHints(message, database);
}
