// `nexus search` and `nexus doctor`.

import type { Problem, TurnHit } from '@agent-ledger/agents-ledger';
import { DatabaseNotFoundError, LedgerError, type Role, type TurnType } from '@agent-ledger/core';
import type { EventHit } from '@agent-ledger/events-ledger';
import { integerOption, stringOption, timeOption, UsageError } from '../arguments.ts';
import { recoveryAdvice } from '../cli-conventions.ts';
import type { Command } from '../command.ts';
import { clip } from '../render.ts';
import { searchByMeaningCommand } from './embed.ts';

export const searchCommand: Command = {
  path: ['search'],
  readsOnly: true,
  summary: 'Search every turn (compacted or not) and every event, ranked by bm25.',
  arguments: ['<text>'],
  options: {
    raw: { type: 'boolean', description: 'show the matching turns themselves, not the compactions that stand in for them' },
    session: { type: 'string', description: 'only turns on this session’s line (no events)', valueName: 'ID' },
    forks: { type: 'boolean', description: 'with --session: include the turns of its forks' },
    role: { type: 'string', description: 'user or assistant (turns only)', valueName: 'ROLE' },
    type: { type: 'string', description: 'normal or compaction (turns only)', valueName: 'TYPE' },
    author: { type: 'string', description: 'author of the turn (metadata.author) or event', valueName: 'NAME' },
    channel: { type: 'string', description: 'only events of this channel (no turns)', valueName: 'CHANNEL' },
    since: { type: 'string', description: 'at or after (ISO 8601 or ms)', valueName: 'TIME' },
    until: { type: 'string', description: 'at or before (ISO 8601 or ms)', valueName: 'TIME' },
    limit: { type: 'string', description: 'hits per page (default 20, at most 200)', valueName: 'N' },
    cursor: { type: 'string', description: 'nextCursor of the previous page', valueName: 'CURSOR' },
    semantic: {
      type: 'boolean',
      description:
        "rank turns by meaning: stored vectors (`nexus embed`) against the text's, with the model $NEXUS_EMBEDDINGS_URL and _MODEL name; takes --session and --limit",
    },
    advanced: {
      type: 'boolean',
      description:
        'the text is the engine\'s query syntax: SQLite FTS5 ("phrase", NEAR, prefix*, AND/OR/NOT) or PostgreSQL websearch ("phrase", or, -word)',
    },
  },
  details:
    'Plain text is words, never syntax: quotes, parentheses and operators are searched as words. Every word must ' +
    'match; when no result has every word, any word may. In the default (resolved) view a hit inside a summarized ' +
    'turn is reported as the compaction that stands in for it, with via=<matching turn>.',
  async run(input) {
    const { positionals, options, io, openLedger, openEventsLedger } = input;
    const query = positionals[0] as string;
    if (query.trim() === '') throw new UsageError('give the words to search for: `nexus search <text>`.');
    if (options.semantic === true) return searchByMeaningCommand(input, query);
    const limit = integerOption(options.limit, 'limit') ?? 20;
    const turnsOnly = ['session', 'role', 'type'].some((name) => options[name] !== undefined);
    const eventsOnly = options.channel !== undefined;
    if (turnsOnly && eventsOnly)
      throw new UsageError('--channel selects events; --session, --role and --type select turns: use one kind.');
    const cursor = decodeMergedCursor(stringOption(options.cursor));
    const role = stringOption(options.role);
    if (role !== undefined && role !== 'user' && role !== 'assistant') throw new UsageError('--role must be user or assistant.');
    const type = stringOption(options.type);
    if (type !== undefined && type !== 'normal' && type !== 'compaction')
      throw new UsageError('--type must be normal or compaction.');
    const common = {
      limit,
      advanced: options.advanced === true,
      author: stringOption(options.author),
      since: timeOption(options.since, 'since'),
      until: timeOption(options.until, 'until'),
    };
    const turns =
      eventsOnly || cursor.turns === null
        ? { hits: [], nextCursor: null }
        : await openLedger().search(query, {
            ...common,
            cursor: cursor.turns,
            view: options.raw === true ? 'raw' : 'resolved',
            sessionId: stringOption(options.session),
            includeForks: options.forks === true,
            role: role as Role | undefined,
            turnType: type as TurnType | undefined,
          });
    const events =
      turnsOnly || cursor.events === null
        ? { hits: [], nextCursor: null }
        : await openEventsLedger().search(query, { ...common, cursor: cursor.events, channel: stringOption(options.channel) });
    // Both lists are ranked by the store's relevance (bm25 on SQLite; lower is better in both hit
    // types); they are interleaved by score into one page, and each side
    // resumes right after the last of its hits that made it onto the page.
    const merged = [
      ...turns.hits.map((hit) => ({ side: 'turns' as const, cursor: hit.cursor, output: turnHitOutput(hit) })),
      ...events.hits.map((hit) => ({ side: 'events' as const, cursor: hit.cursor, output: eventHitOutput(hit) })),
    ]
      .sort((left, right) => left.output.score - right.output.score)
      .slice(0, limit);
    const resume = (
      side: 'turns' | 'events',
      result: { hits: unknown[]; nextCursor: string | null },
      incoming: string | null | undefined,
    ) => {
      if (incoming === null) return null;
      const taken = merged.filter((hit) => hit.side === side);
      if (taken.length === result.hits.length) return result.nextCursor;
      return taken.length > 0 ? (taken.at(-1)?.cursor ?? null) : incoming;
    };
    const nextTurns = turnsOnly || eventsOnly ? (eventsOnly ? null : turns.nextCursor) : resume('turns', turns, cursor.turns);
    const nextEvents = turnsOnly || eventsOnly ? (turnsOnly ? null : events.nextCursor) : resume('events', events, cursor.events);
    const hits = merged.map((hit) => hit.output);
    const nextCursor = nextTurns === null && nextEvents === null ? null : encodeMergedCursor(nextTurns, nextEvents);
    if (hits.length === 0) io.print(`no match for ${JSON.stringify(query)}`);
    // Best first; the scores stay in --json (the engine's own scale: lower is better on both engines).
    for (const hit of hits) {
      const id = 'turnId' in hit ? hit.turnId : hit.eventId;
      const via = 'via' in hit && hit.via ? ` via=${hit.via}` : '';
      const where = 'turnId' in hit ? hit.sessionId : `#${hit.channel}`;
      io.print(`${id}${via}  ${where}  ${shortDate(hit.timestamp)}  ${clip(hit.snippet, 100)}`);
    }
    if (nextCursor) io.print(`more: --cursor ${nextCursor}`);
    return { hits, nextCursor };
  },
};

/** `2026-05-01 10:00` (UTC): enough to place a hit in time on one line. */
function shortDate(timestamp: number): string {
  return new Date(timestamp).toISOString().slice(0, 16).replace('T', ' ');
}

function engineName(engine: string): string {
  return engine === 'sqlite' ? 'SQLite' : engine;
}

function turnHitOutput(hit: TurnHit) {
  return {
    turnId: hit.turnId,
    sessionId: hit.sessionId,
    turnType: hit.turnType,
    via: hit.via,
    role: hit.role,
    timestamp: hit.timestamp,
    snippet: hit.snippet,
    score: hit.score,
  };
}

function eventHitOutput(hit: EventHit) {
  return {
    eventId: hit.eventId,
    channel: hit.channel,
    seq: hit.seq,
    author: hit.author,
    timestamp: hit.occurredAt,
    snippet: hit.snippet,
    score: hit.score,
  };
}

/**
 * One cursor for two ranked lists. Per side: a cursor string to resume after, absent when that side
 * has not been read yet (start from the top), or null once it is exhausted.
 */
function encodeMergedCursor(turns: string | null | undefined, events: string | null | undefined): string {
  return Buffer.from(JSON.stringify({ turns, events })).toString('base64url');
}

function decodeMergedCursor(cursor: string | undefined): { turns: string | undefined | null; events: string | undefined | null } {
  if (cursor === undefined) return { turns: undefined, events: undefined };
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { turns?: unknown; events?: unknown };
    const side = (part: unknown) => (typeof part === 'string' ? part : part === undefined ? undefined : null);
    return { turns: side(value.turns), events: side(value.events) };
  } catch {
    throw new UsageError(`"${cursor}" is not a cursor this search returned; pass the "more" cursor of the previous page.`);
  }
}

export const doctorCommand: Command = {
  path: ['doctor'],
  readsOnly: true,
  summary:
    'Check the database: SQLite integrity, search indexes, compaction and forest invariants, turn and event hash chains, session heads.',
  arguments: [],
  options: {},
  details:
    'Reports problems and exits 1 when there are any; repairs nothing and writes nothing. Warnings (a tool call that was ' +
    'never answered, say) are listed but do not fail the check. On a damaged file, a check that cannot read what it ' +
    'needs is a finding too, and the checks after it still run.',
  async run({ io, openLedger, openEventsLedger, dbPath }) {
    const ledger = openLedger();
    const events = openEventsLedger();
    const problems: Problem[] = [];
    // The engine's own check of its files (SQLite: PRAGMA quick_check); null when it finds nothing.
    const storage = await ledger.checkStorage();
    const damaged = storage.problem !== null;
    if (damaged)
      problems.push({
        code: 'SQLITE_INTEGRITY',
        message: `${engineName(storage.engine)} integrity check: ${storage.problem}. ${damageAdvice(storage.engine, dbPath)}`,
        ids: [],
      });
    // On a damaged file any later check may stop on a page it cannot read: each is then a finding.
    const attempt = async <T>(what: string, check: () => Promise<T>): Promise<T | null> => {
      try {
        return await check();
      } catch (error) {
        if (!damaged || !LedgerError.isInstance(error) || DatabaseNotFoundError.isInstance(error)) throw error;
        problems.push({ code: 'STORAGE_CORRUPT', message: `${what} stopped on the damaged file: ${error.message}`, ids: [] });
        return null;
      }
    };
    problems.push(...((await attempt('The compaction, forest and turn checks', () => ledger.doctor())) ?? []));
    const eventIndex = await attempt('The event search index check', () => events.checkSearchIndex());
    if (eventIndex)
      problems.push({
        code: 'SEARCH_INDEX_MISMATCH',
        message: `The event search index does not match the events (${eventIndex}).`,
        ids: [],
      });
    const chain = await attempt('The event chain check', () => events.verify());
    if (chain && !chain.ok && chain.firstBroken) {
      const broken = chain.firstBroken;
      problems.push({
        code: 'EVENT_CHAIN_BROKEN',
        message: `${broken.channel} seq ${broken.seq}: ${broken.reason}`,
        ids: broken.eventId ? [broken.eventId] : [],
      });
    }
    const errors = problems.filter((problem) => problem.severity !== 'warning');
    if (errors.length === 0)
      io.print(
        `ok: integrity, search indexes, compactions, topic forests, turn hash chains and heads, and ${chain?.checked ?? 0} event links checked`,
      );
    for (const problem of problems) {
      const label = problem.severity === 'warning' ? 'warning ' : '';
      io.print(`${label}${problem.code}: ${problem.message}${problem.ids.length ? ` [${problem.ids.join(', ')}]` : ''}`);
    }
    if (errors.length > 0) io.setExitCode(1);
    return { ok: errors.length === 0, problems };
  },
};

/** What to do about a damaged database, as commands to paste. */
function damageAdvice(engine: string, dbPath: string): string {
  if (engine === 'sqlite') return `Stop writing to it. ${recoveryAdvice(dbPath)}`;
  return 'Restore the database from a backup; `nexus copy` copies what still reads into a new one.';
}
