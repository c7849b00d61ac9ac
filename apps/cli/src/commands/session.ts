// `nexus session create|list|show`.

import { integerOption, stringOption, UsageError } from '../arguments.ts';
import type { Command } from '../command.ts';

const SETTINGS_OPTIONS = {
  'context-window': { type: 'string', description: 'model context window in tokens (default 200000)', valueName: 'N' },
  reserve: { type: 'string', description: 'tokens kept free for the next turn (default 20000)', valueName: 'N' },
  keep: { type: 'string', description: 'recent tokens a compaction keeps raw (default 30000)', valueName: 'N' },
} as const;

export function settingsFromOptions(options: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries({
      contextWindow: integerOption(options['context-window'], 'context-window'),
      reserveTokens: integerOption(options.reserve, 'reserve'),
      keepRecentTokens: integerOption(options.keep, 'keep'),
    }).filter(([, value]) => value !== undefined),
  );
}

export { SETTINGS_OPTIONS };

export const sessionCreate: Command = {
  path: ['session', 'create'],
  summary: 'Create an empty session.',
  arguments: [],
  options: {
    label: { type: 'string', description: 'a name for people', valueName: 'TEXT' },
    strategy: {
      type: 'string',
      description: 'compaction strategy of the session: flat (default) or union-find',
      valueName: 'NAME',
    },
    ...SETTINGS_OPTIONS,
  },
  async run({ options, io, openLedger }) {
    const session = await openLedger().createSession({
      label: stringOption(options.label),
      settings: settingsFromOptions(options),
      strategy: stringOption(options.strategy),
    });
    io.print(`created session ${session.id}${session.label ? ` (${session.label})` : ''}`);
    return session;
  },
};

export const sessionList: Command = {
  path: ['session', 'list'],
  readsOnly: true,
  summary: 'List sessions, newest first.',
  arguments: [],
  options: {
    limit: { type: 'string', description: 'how many (default 100)', valueName: 'N' },
    offset: { type: 'string', description: 'skip this many', valueName: 'N' },
  },
  async run({ options, io, openLedger, commandLine }) {
    const limit = integerOption(options.limit, 'limit');
    if (limit === 0) throw new UsageError('--limit must be at least 1 (it is how many sessions to list).');
    const offset = integerOption(options.offset, 'offset') ?? 0;
    const sessions = await openLedger().listSessions({ limit, offset });
    if (sessions.length === 0 && offset > 0) io.print(`no sessions after the first ${offset} (--offset ${offset})`);
    else if (sessions.length === 0)
      io.print(`no sessions yet: \`${commandLine('session create')}\` or \`${commandLine('import <file>')}\``);
    for (const session of sessions) {
      const fork = session.forkedFromTurnId ? `  fork of ${session.parentSessionId} at ${session.forkedFromTurnId}` : '';
      io.print(`${session.id}  head ${session.headTurnId ?? '(empty)'}  ${session.label ?? ''}${fork}`);
    }
    return sessions;
  },
};

export const sessionShow: Command = {
  path: ['session', 'show'],
  readsOnly: true,
  summary: 'Show a session: settings, head, context usage.',
  arguments: ['<sessionId>'],
  options: {},
  async run({ positionals, io, openLedger }) {
    const ledger = openLedger();
    const sessionId = positionals[0] as string;
    const session = await ledger.getSession(sessionId);
    const usage = await ledger.contextUsage(sessionId);
    io.print(`session   ${session.id}${session.label ? ` (${session.label})` : ''}`);
    io.print(`head      ${session.headTurnId ?? '(empty)'}`);
    if (session.forkedFromTurnId)
      io.print(
        `fork of   ${session.parentSessionId} at ${session.forkedFromTurnId}${session.ignoreCompactionsThroughDepth !== null ? ' (full)' : ''}`,
      );
    io.print(
      `window    ${session.settings.contextWindow} tokens, reserve ${session.settings.reserveTokens}, keep ${session.settings.keepRecentTokens}`,
    );
    io.print(`context   ${usage.contextTokens} / ${usage.limit} tokens${usage.shouldCompact ? ' — should compact' : ''}`);
    io.print(`strategy  ${session.compactionStrategy ?? 'the ledger default (flat)'}`);
    return { ...session, usage };
  },
};
