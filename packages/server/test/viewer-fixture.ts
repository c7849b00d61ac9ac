// A ledger worth looking at, for the viewer's browser tests and its screenshots: a flat session
// about a database migration that compacts at least twice on a small window (with a tool round and
// a turn citing an inbound event), a fork from a turn already summarized, a union-find session
// about three topics, and four sessions as the transcript importers write them (Claude Code, Codex,
// pi: their labels, tool calls and metadata). Everything is written through the ledgers' public API
// into a temp SQLite file.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentsLedger, type AppendTurnInput, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { storeOf } from '@agent-ledger/agents-ledger/testing';
import { type CompactionTurn, type Session, sequentialIds } from '@agent-ledger/core';
import { createEventsLedger, type EventsLedger } from '@agent-ledger/events-ledger';

export interface ViewerFixture {
  ledger: AgentsLedger;
  events: EventsLedger;
  directory: string;
  migration: Session;
  fork: Session;
  topics: Session;
  compactions: CompactionTurn[];
  /** The event the first user turn cites. */
  eventId: string;
  imported: ImportedSessions;
  cleanup(): Promise<void>;
}

export interface ImportedSessions {
  /** Claude Code, with a title: `claude-code /home/dev/payments-service … · Fix the retry loop`. */
  titled: Session;
  /** Claude Code, no title, in a folder that starts like the titled one's. */
  untitled: Session;
  /** Codex in the titled one's folder, with an `apply_patch` call and a long shell call. */
  codex: Session;
  /** pi, with a branch summary. */
  pi: Session;
  /** The patch the Codex turn's `apply_patch` input holds. */
  patch: string;
  /** The pi branch summary's turn. */
  branchSummaryTurnId: string;
}

const MIGRATION_SETTINGS = { contextWindow: 560, reserveTokens: 80, keepRecentTokens: 150 };
const START = Date.parse('2026-03-02T09:00:00Z');

const MIGRATION: Array<[role: 'user' | 'assistant', text: string]> = [
  [
    'user',
    'Morning. Today we start the payments database migration, tracked in PAY-1874: move payments-api from PostgreSQL 13 to 16.2.',
  ],
  [
    'assistant',
    'Happy to help. Where does the current primary live, how does the app connect, and is there a deadline for the cutover?',
  ],
  [
    'user',
    'The primary is db-payments-1.internal:5432 on PostgreSQL 13.11. The new server sits behind pgbouncer at db-payments-2.internal:6432.',
  ],
  [
    'assistant',
    'Noted: old primary on db-payments-1, new one behind pgbouncer. Which pgbouncer version is installed? Old builds mishandle SCRAM.',
  ],
  ['user', 'We run pgbouncer 1.22.1 on the new host, with auth_type scram-sha-256.'],
  ['assistant', 'Good, 1.22.1 handles SCRAM. Next: how large is the payments database, and which tables are the busiest?'],
  ['user', 'About 420 GB. The ledger_entries table takes 310 GB of it and gets 1,800 inserts per second at peak.'],
  [
    'assistant',
    'Then logical replication is the safe path: pg_dump of 420 GB would need hours of downtime. Is wal_level already logical?',
  ],
  ['user', 'Not yet. Changing wal_level needs a restart; we can restart db-payments-1 on Thursday at 06:00 UTC.'],
  ['assistant', 'Thursday 06:00 UTC it is. Meanwhile let me check the replication slots on the old primary.'],
  ['assistant', 'Checking the slots now.'],
  ['user', 'The query came back: no replication slots exist on db-payments-1 today.'],
  [
    'assistant',
    'Clean start then. We will create one publication, payments_pub, for all tables, and one subscription on the new server.',
  ],
  ['user', 'Our pods set PAYMENTS_DB_POOL_SIZE=40 each and we run 12 pods. Will pgbouncer cope?'],
  [
    'assistant',
    '12 pods × 40 is 480 client connections; pgbouncer in transaction mode can fold them into a pool of about 60 server connections.',
  ],
  ['user', 'Marcus asks whether we need to copy sequences by hand. He remembers an incident, INC-2291, where IDs collided.'],
  [
    'assistant',
    'Yes: logical replication does not carry sequence values. Before cutover, run a sequence sync script and add a safety gap of 1,000,000.',
  ],
  ['user', 'Fine. The runbook lives at docs/runbooks/payments-pg16.md; please keep it updated as we decide things.'],
  [
    'assistant',
    'Will do. Decided so far: logical replication, payments_pub, pgbouncer transaction mode, sequence sync with a 1,000,000 gap.',
  ],
  ['user', 'Thursday went well: wal_level is logical and the subscription finished its initial copy in 3 h 40 min.'],
  ['assistant', 'Great. Replication lag should be near zero now. Can you check pg_stat_subscription on db-payments-2?'],
  ['user', 'Lag is 120 ms under peak load. The feature flag payments.use_pg16 is ready in LaunchDarkly.'],
  [
    'assistant',
    'Then the cutover plan: pause writes, wait for lag 0, run the sequence sync, flip payments.use_pg16, resume writes.',
  ],
  ['user', 'We scheduled the cutover for Tuesday 07:30 UTC, with a rollback window of 45 minutes.'],
  [
    'assistant',
    'Rollback: flip payments.use_pg16 back, and replicate new rows from db-payments-2 to db-payments-1 with a reverse subscription.',
  ],
  ['user', 'Tuesday, 07:30. Marcus paused writes and ran the sequence sync. Flipping the flag now.'],
  ['assistant', 'Watching: error rate flat, p99 latency 41 ms against 38 ms before. Looks healthy.'],
  ['user', 'All green after 45 minutes. We keep db-payments-1 read-only for a week, then decommission it.'],
  ['assistant', 'Noted in the runbook: decommission db-payments-1 after a week of read-only, snapshot kept for 90 days.'],
  ['user', 'One last thing: write a short summary of what we did for the PAY-1874 ticket.'],
  [
    'assistant',
    'PAY-1874 done: payments-api on PostgreSQL 16.2 behind pgbouncer 1.22.1, logical replication, cutover Tuesday 07:30 UTC, no data loss.',
  ],
];

const TOPIC_LINES = {
  postgres:
    'The postgres replica lagged while autovacuum ran; the wal checkpoint and the btree index rebuild kept the planner busy.',
  prometheus:
    'The prometheus alertmanager paged us; the grafana dashboard showed scrape cardinality and a histogram exporter gap.',
  backups:
    'The nightly restic backups went offsite to the glacier bucket; retention is 90 days with encryption on every snapshot.',
} as const;

/** Opens a fresh ledger in a temp folder and writes the three sessions. */
export async function createViewerFixture(): Promise<ViewerFixture> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'nexus-viewer-'));
  let clock = START;
  const now = () => {
    clock += 45_000;
    return clock;
  };
  // One id sequence for turns, sessions and events, so every run (and every screenshot) reads the same.
  const generateId = sequentialIds();
  const ledger = openAgentsLedger(path.join(directory, 'ledger.db'), { now, generateId });
  const events = createEventsLedger({ store: storeOf(ledger), now, generateId });
  const cleanup = async () => {
    await ledger.close();
    fs.rmSync(directory, { recursive: true, force: true });
  };
  try {
    const migration = await ledger.createSession({ label: 'payments migration (PAY-1874)', settings: MIGRATION_SETTINGS });
    const { event } = await events.append({
      channel: 'slack:#payments',
      externalId: 'msg-1001',
      author: 'dana',
      payload: { text: MIGRATION[0]?.[1] },
    });
    const compactions: CompactionTurn[] = [];
    for (const [index, [role, text]] of MIGRATION.entries()) {
      const inputs: AppendTurnInput[] = [{ role, content: text, metadata: role === 'user' ? { author: 'dana' } : undefined }];
      if (index === 0) inputs[0] = { ...inputs[0], eventIds: [event.id] } as AppendTurnInput;
      if (index === 10) {
        // A tool round: the assistant asks for the slots, the result comes back as a user turn.
        inputs[0] = {
          role: 'assistant',
          content: [
            { type: 'text', text },
            {
              type: 'tool_use',
              id: 'toolu_slots',
              name: 'run_query',
              input: { sql: 'select slot_name from pg_replication_slots' },
            },
          ],
        };
        inputs.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_slots', content: '(0 rows)' }] });
      }
      await ledger.appendTurns(migration.id, inputs);
      if (await ledger.shouldCompact(migration.id))
        compactions.push(await ledger.compact(migration.id, { trigger: 'threshold' }));
    }
    if (compactions.length < 2)
      throw new Error(`the fixture should compact at least twice; it compacted ${compactions.length} times`);
    const first = compactions[0] as CompactionTurn;
    const forked = await ledger.forkFrom(first.summarizedThroughTurnId, { label: 'what-if: pg_upgrade instead' });
    await ledger.appendTurns(forked.session.id, [
      { role: 'user', content: 'What if we used pg_upgrade --link instead of logical replication for PAY-1874?' },
      {
        role: 'assistant',
        content: 'pg_upgrade --link needs about 15 minutes of downtime on 420 GB and no sequence sync, but no easy rollback.',
      },
    ]);

    const topics = await ledger.createSession({
      label: 'ops notes (union-find)',
      strategy: 'union-find',
      settings: { contextWindow: 1400, reserveTokens: 150, keepRecentTokens: 350 },
    });
    const names = Object.keys(TOPIC_LINES) as Array<keyof typeof TOPIC_LINES>;
    const topicTurns: AppendTurnInput[] = [];
    for (let round = 0; round < 6; round += 1) {
      for (const name of names) {
        topicTurns.push({ role: 'user', content: `${TOPIC_LINES[name]} Note ${round + 1} on ${name}.` });
        topicTurns.push({ role: 'assistant', content: `Noted for ${name}, round ${round + 1}: ${TOPIC_LINES[name]}` });
      }
    }
    await ledger.appendTurns(topics.id, topicTurns);
    await ledger.compact(topics.id);
    const imported = await writeImportedSessions(ledger);
    return {
      ledger,
      events,
      directory,
      migration: await ledger.getSession(migration.id),
      fork: await ledger.getSession(forked.session.id),
      topics: await ledger.getSession(topics.id),
      compactions,
      eventId: event.id,
      imported,
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/retry.ts',
  '@@ export async function withRetry(call) {',
  '-  for (;;) {',
  '+  for (let attempt = 0; attempt < 5; attempt += 1) {',
  '     try {',
  '       return await call();',
  '*** End Patch',
].join('\n');

/**
 * Sessions as `nexus import` writes them, by hand (the server does not depend on the importers):
 * labels from transcript-entry.ts sessionLabel (`<tool> <cwd> <YYYY-MM-DD HH:MM>[ · <title>]`),
 * `metadata.source` on every turn, Codex's custom tool call `apply_patch` as `input: { input }`
 * (formats/codex.ts), and pi's `branch_summary` as a user turn marked `metadata.pi.branchSummaryFrom`
 * (formats/pi.ts).
 */
async function writeImportedSessions(ledger: AgentsLedger): Promise<ImportedSessions> {
  const at = (iso: string) => Date.parse(iso);
  const source = (format: string, ...lines: string[]) => ({ source: { format, lines } });

  const titled = await ledger.createSession({
    label: 'claude-code /home/dev/payments-service 2026-05-01 09:00 · Fix the retry loop',
  });
  await ledger.appendTurns(titled.id, [
    {
      role: 'user',
      content: 'withRetry in src/retry.ts never gives up when the card processor is down. Cap it at five attempts.',
      timestamp: at('2026-05-01T09:00:00Z'),
      metadata: source('claude-code', 'c1'),
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will cap the loop and write a test for it.' },
        {
          type: 'tool_use',
          id: 'toolu_write',
          name: 'Write',
          input: {
            file_path: '/home/dev/payments-service/test/retry.test.ts',
            content:
              "import { withRetry } from '../src/retry';\n\ntest('gives up after five attempts', async () => {\n  await expect(withRetry(fail)).rejects.toThrow();\n});",
          },
        },
      ],
      timestamp: at('2026-05-01T09:01:00Z'),
      metadata: source('claude-code', 'c2'),
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_write', content: 'File created.' }],
      timestamp: at('2026-05-01T09:01:05Z'),
      metadata: source('claude-code', 'c3'),
    },
  ]);

  const untitled = await ledger.createSession({ label: 'claude-code /home/dev/payments-gateway 2026-05-02 14:30' });
  await ledger.appendTurns(untitled.id, [
    {
      role: 'user',
      content: 'Which webhooks does the gateway still sign with the old key?',
      timestamp: at('2026-05-02T14:30:00Z'),
      metadata: source('claude-code', 'g1'),
    },
  ]);

  const codex = await ledger.createSession({ label: 'codex /home/dev/payments-service 2026-05-03 10:15' });
  await ledger.appendTurns(codex.id, [
    {
      role: 'user',
      content: 'Make withRetry stop after five attempts.',
      timestamp: at('2026-05-03T10:15:00Z'),
      metadata: source('codex', 'x1'),
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'tool_use',
          id: 'call_find',
          name: 'shell',
          input: { command: ['bash', '-lc', 'rg -n withRetry src'], workdir: '/home/dev/payments-service', timeout_ms: 10000 },
        },
      ],
      timestamp: at('2026-05-03T10:15:20Z'),
      metadata: source('codex', 'x2'),
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_find', content: 'src/retry.ts:1:export async function withRetry(call) {' },
      ],
      timestamp: at('2026-05-03T10:15:21Z'),
      metadata: source('codex', 'x3'),
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_patch', name: 'apply_patch', input: { input: PATCH } }],
      timestamp: at('2026-05-03T10:15:40Z'),
      metadata: source('codex', 'x4'),
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_patch', content: 'Success. Updated the following files:\nM src/retry.ts' },
      ],
      timestamp: at('2026-05-03T10:15:41Z'),
      metadata: source('codex', 'x5'),
    },
  ]);

  const pi = await ledger.createSession({ label: 'pi /home/dev/ledger-ui 2026-05-04 16:00' });
  const piTurns = await ledger.appendTurns(pi.id, [
    {
      role: 'user',
      content: 'Try a virtual list for the timeline.',
      timestamp: at('2026-05-04T16:00:00Z'),
      metadata: source('pi', 'p1'),
    },
    {
      role: 'user',
      content: 'The virtual-list branch was dropped: scrolling to a turn by id broke, and pages of 50 were fast enough.',
      timestamp: at('2026-05-04T16:20:00Z'),
      metadata: { ...source('pi', 'p7'), pi: { branchSummaryFrom: 'p6' } },
    },
    {
      role: 'assistant',
      content: 'Back on the paged timeline, then.',
      timestamp: at('2026-05-04T16:20:30Z'),
      metadata: source('pi', 'p8'),
    },
  ]);

  return {
    titled: await ledger.getSession(titled.id),
    untitled: await ledger.getSession(untitled.id),
    codex: await ledger.getSession(codex.id),
    pi: await ledger.getSession(pi.id),
    patch: PATCH,
    branchSummaryTurnId: (piTurns[1] as { id: string }).id,
  };
}

/** The ids of every turn from the root to `headTurnId`, as the ledger itself reads them. */
export async function historyIds(ledger: AgentsLedger, headTurnId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const turn of ledger.getFullHistory(headTurnId)) ids.push(turn.id);
  return ids;
}
