// The CLI's conventions, in one place: global options go before or after the command words, every
// hint the CLI prints is a command that works when pasted (with the --db the user gave), and an
// error speaks of the flags a person types, not the library's field names.

import { databaseNotFoundReason, InvalidInputError, type LedgerError } from '@agent-ledger/core';
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
  budgetTokens: '--budget',
};

/** The fields the library's not-found errors carry. */
type NotFoundFields = Partial<Record<'turnId' | 'sessionId' | 'eventId' | 'path' | 'reason', string>>;

/** The library's advice, where it names a function, as the command that does the same. */
const LIBRARY_TO_CLI: ReadonlyArray<readonly [string, string]> = [
  ['topics(sessionId) lists topic ids', '`nexus topics <session>` lists topic ids'],
  ['as checkpoint() returns it', 'as `nexus events checkpoint` prints it'],
  ["the events ledger's verify()", '`nexus events verify`'],
  [
    'Open it once for writing where it may be written',
    'Run a command that writes to it (a hook, `nexus import <file>`) where it may be written: that migrates it',
  ],
  ['(opening it to write makes it one)', '(a command that writes makes it one)'],
];

/** What the library says in its own terms (listSessions(), mustExist), said as CLI commands. */
function inCliTerms(error: LedgerError): string {
  const fields = error as LedgerError & NotFoundFields;
  switch (error.code) {
    case 'TURN_NOT_FOUND':
      return `No turn with id "${fields.turnId}". \`nexus session list\` shows each session's head turn; \`nexus history <headTurnId>\` lists the turns up to it.`;
    case 'SESSION_NOT_FOUND':
      return `No session with id "${fields.sessionId}". \`nexus session list\` shows the sessions in this database.`;
    case 'EVENT_NOT_FOUND':
      return `No event with id "${fields.eventId}". \`nexus events list --channel C\` lists a channel's events.`;
    case 'DATABASE_NOT_FOUND':
      // Where something else is at the path, a write refuses it too: only a missing file gets the hint.
      if (fields.reason !== undefined)
        return `${saidAsCommands(databaseNotFoundReason(fields.path ?? '', fields.reason))} Check the path (--db or $NEXUS_DB).`;
      return (
        `${databaseNotFoundReason(fields.path ?? '', fields.reason)} Check the path (--db or $NEXUS_DB); ` +
        'a command that writes (`nexus session create`, `nexus import <file>`) creates a new ledger.'
      );
    default:
      return saidAsCommands(error.message);
  }
}

function saidAsCommands(message: string): string {
  return LIBRARY_TO_CLI.reduce((text, [library, cli]) => text.replace(library, cli), message);
}

/** The library's recovery advice for a damaged ledger starts here; the CLI gives its own (recoveryAdvice). */
const LIBRARY_RECOVERY = 'Keep the file as it is and recover into a new one:';
const DAMAGED_LEDGER = /^The ledger at (.+?) is damaged: /;

/** An error's message as a CLI user should read it. */
export function messageForCli(error: LedgerError, database: { path: string; given: boolean }, flags: readonly string[]): string {
  let message = inCliTerms(error);
  if (InvalidInputError.isInstance(error)) {
    for (const [field, flag] of Object.entries(SETTING_FLAGS)) {
      if (flags.includes(flag.slice(2))) message = message.replace(new RegExp(`\\b${field}\\b`, 'g'), flag);
    }
  }
  const recovery = message.indexOf(LIBRARY_RECOVERY);
  if (recovery < 0) return withDatabaseInHints(message, database);
  // Its commands name the damaged file themselves (a copy's source is not --db), so no --db is added.
  const file = DAMAGED_LEDGER.exec(message)?.[1] ?? database.path;
  return `${withDatabaseInHints(message.slice(0, recovery), database)}${recoveryAdvice(file)}`;
}

/** What to do about a damaged SQLite ledger file, as commands to paste. */
export function recoveryAdvice(file: string): string {
  const quoted = shellQuote(file);
  return (
    'Keep the file as it is and recover into a new one: ' +
    `\`sqlite3 ${quoted} .dump | sed 's/^ROLLBACK; -- due to errors$/COMMIT;/' | sqlite3 recovered.db\` copies every ` +
    'row SQLite can still read (a dump of a damaged file ends in ROLLBACK: the sed keeps what was read); ' +
    '`nexus doctor --db recovered.db` then lists what is missing, and `nexus events verify --checkpoint FILE --db recovered.db`, ' +
    `with a checkpoint kept elsewhere, which events were lost. \`nexus copy --from ${quoted} --to recovered.db\` copies ` +
    'the ledger instead when its rows still read (damage in an index, say).'
  );
}
