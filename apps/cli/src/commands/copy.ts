// `nexus copy --from LOCATION --to LOCATION`: a whole ledger from one engine to another (a SQLite
// file to a PostgreSQL database, back, or between two of a kind), ids and hashes kept. The work is
// @agent-ledger/store's copyLedger; this file opens both stores, draws progress on a terminal and reports.

import type { CopyLedgerCounts, CopyLedgerProgress, LedgerStore } from '@agent-ledger/store';
import { stringOption, UsageError } from '../arguments.ts';
import { shellQuote } from '../cli-conventions.ts';
import type { Command, CommandIo } from '../command.ts';
import type * as ProgressBarModule from '../progress-bar.ts';

export const copyCommand: Command = {
  path: ['copy'],
  summary: 'Copy a whole ledger into an empty one: SQLite file ↔ postgres:// URL, ids and hashes kept.',
  arguments: [],
  options: {
    from: { type: 'string', description: 'the ledger to copy: a SQLite file or a postgres:// URL', valueName: 'FILE|URL' },
    to: { type: 'string', description: 'an empty ledger to copy into (created when missing)', valueName: 'FILE|URL' },
  },
  details: [
    'Copies sessions and their forks, turns and compactions (every column, ids kept), union-find forests, topic drops,',
    'events (ids, seq, hashes and payload bytes as stored), the turns’ event links, transcript import records and turn',
    'embeddings. `nexus events verify` and `nexus doctor` on the copy check it like the original. Reads a page at a time',
    '(the ledger never in memory at once); progress goes to stderr when it is a terminal.',
    '',
    'The target must be empty: a new file, or a new PostgreSQL database (createdb nexus; the copy migrates it). Stop',
    'writers to the source while it runs. An interrupted copy leaves a partial target: delete it and run again.',
    '',
    '  nexus copy --from ./nexus.db --to postgres://nexus@db.internal/nexus',
    '  nexus copy --from postgres://nexus@db.internal/nexus --to ./backup.db',
    '',
    '--db is not used: --from and --to name both ledgers.',
  ].join('\n'),
  async run({ options, io }) {
    const from = stringOption(options.from);
    const to = stringOption(options.to);
    if (!from || !to) throw new UsageError('give both ledgers: nexus copy --from FILE|URL --to FILE|URL.');
    if (from === to) throw new UsageError('--from and --to name the same ledger: copy into a new file or database.');
    let source: LedgerStore | null = null;
    let target: LedgerStore | null = null;
    const [{ copyLedger, openLedgerStore }, { progressBar }] = await Promise.all([
      import('@agent-ledger/store'),
      import('../progress-bar.ts'),
    ]);
    const progress = startCopyProgress(io, progressBar);
    try {
      // The source must be a ledger already (a typo must not create an empty one and copy nothing),
      // and is only read: a read-only file copies; an older one is brought up to date first.
      source = openLedgerStore(from, { readonly: true, upgrade: true });
      target = openLedgerStore(to);
      const copied = await copyLedger(source, target, { onProgress: progress.update });
      progress.stop();
      io.print(`copied ${source.location} to ${target.location}: ${summaryOf(copied)}`);
      io.print(
        `check the copy: nexus events verify --db ${shellQuote(target.location)} && nexus doctor --db ${shellQuote(target.location)}`,
      );
      return { from: source.location, to: target.location, copied };
    } finally {
      progress.stop();
      // Both, whatever happens to the first: an open PostgreSQL pool would keep the process alive.
      await Promise.allSettled([source?.close(), target?.close()]);
    }
  },
};

function summaryOf(copied: CopyLedgerCounts): string {
  return [
    `${count(copied.sessions, 'session')}`,
    `${count(copied.turns, 'turn')} (${count(copied.compactions, 'compaction')})`,
    `${count(copied.forests, 'forest')}`,
    `${count(copied.events, 'event')} on ${count(copied.channels, 'channel')}`,
    `${count(copied.eventLinks, 'event link')}`,
    `${count(copied.topicDrops, 'topic drop')}`,
    `${count(copied.transcriptSources, 'transcript source')} (${count(copied.transcriptLines, 'line')})`,
    `${count(copied.embeddings, 'embedding')}`,
  ].join(', ');
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}

interface CopyProgressBar {
  update(progress: CopyLedgerProgress): void;
  stop(): void;
}

/** A progress bar over the source's turns (cli-progress), on stderr only when it is a terminal. */
function startCopyProgress(io: CommandIo, progressBar: typeof ProgressBarModule.progressBar): CopyProgressBar {
  const bar = progressBar(io, 'copying {bar} {value}/{total} turns | {sessions} sessions | {events} events | {stage}');
  let started = false;
  let stopped = false;
  return {
    update: ({ stage, copied, totalTurns }) => {
      if (stopped) return;
      const payload = { sessions: copied.sessions, events: copied.events, stage };
      if (!started) {
        started = true;
        bar.start(totalTurns, copied.turns, payload);
      } else bar.update(copied.turns, payload);
    },
    stop: () => {
      if (started && !stopped) bar.stop();
      stopped = true;
    },
  };
}
