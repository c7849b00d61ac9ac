// `nexus copy`: a ledger with forks, flat and union-find compactions, events cited by turns, topic
// drops and imported transcripts, copied SQLite → PostgreSQL → SQLite, reads the same on every
// copy (sessions, trees, full histories, contexts, topics, search, events, verify, doctor); and
// SQLite → SQLite, which runs everywhere. The PostgreSQL legs are skipped only where no PostgreSQL
// server is installed (test/postgres/global-setup.ts says so in one line; in CI it never is).

import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../src/main.ts';
import { runCli, tempFolder } from './run-cli.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../packages/transcripts/test/fixtures');
const server = inject('postgresUrl');

let temp: ReturnType<typeof tempFolder>;
let original: string;

async function json<T>(argv: string[], db: string): Promise<T> {
  const run = await runCli([...argv, '--db', db, '--json']);
  if (run.code !== 0) throw new Error(`nexus ${argv.join(' ')} --db ${db}: exit ${run.code}: ${run.stderr}${run.stdout}`);
  return run.json() as T;
}

interface SessionOut {
  id: string;
  headTurnId: string | null;
  parentSessionId: string | null;
  compactionStrategy: string | null;
}

/** A message long enough that compacting a few of them shrinks a context. */
const long = (text: string) => Array.from({ length: 6 }, (_, index) => `${text} (${index + 1})`).join(' ');

/** The ledger in `db`, as built through the CLI: every kind of row the copy must carry. */
async function buildLedger(db: string): Promise<void> {
  // The fixtures hold a malformed line each on purpose (exit 1, everything else imported).
  const imported = await runCli(['import', path.join(FIXTURES, 'claude-code'), path.join(FIXTURES, 'pi'), '--db', db, '--json']);
  expect((imported.json() as { sources: unknown[] }).sources).toHaveLength(3);
  const events: string[] = [];
  for (const [channel, id, text] of [
    ['slack:#eng', 'm1', 'deploy at 5pm'],
    ['slack:#eng', 'm2', 'rollback plan is ready'],
    ['mail', 'x1', 'quarterly budget review'],
    ['slack:#eng', 'm3', 'deploy finished, all green'],
  ] as const) {
    const appended = await json<{ event: { id: string } }>(
      ['events', 'append', '--channel', channel, '--external-id', id, '--text', text, '--author', 'ada'],
      db,
    );
    events.push(appended.event.id);
  }

  // A union-find session: topics about deploys and budgets, two compactions, a topic dropped.
  const topics = await json<SessionOut>(['session', 'create', '--keep', '40', '--strategy', 'union-find', '--label', 'uf'], db);
  const texts = [
    'We need to plan the deploy of the billing service on Friday.',
    'The deploy needs a rollback plan and a feature flag.',
    'Separately, the quarterly budget review is due next week.',
    'Budget: cloud spend grew 12% and the forecast must be revised.',
    'Back to the deploy: canary first, then 10% of traffic.',
    'The budget spreadsheet lives in the finance drive.',
    'Deploy window confirmed for 5pm with the on-call engineer.',
    'Budget review meeting moved to Thursday morning.',
  ];
  let head = '';
  const turnIds: string[] = [];
  for (const [index, text] of texts.entries()) {
    const turn = await json<{ id: string }>(
      [
        'turn',
        'append',
        topics.id,
        '--role',
        index % 2 === 0 ? 'user' : 'assistant',
        '--text',
        long(text),
        ...(head ? ['--expect-head', head] : []),
        ...(index === 0 ? ['--event', events[0] as string, '--event', events[1] as string] : []),
        ...(index === 2 ? ['--event', events[2] as string] : []),
      ],
      db,
    );
    head = turn.id;
    turnIds.push(turn.id);
  }
  await json(['compact', topics.id], db);
  for (const text of ['Deploy done, metrics look fine.', 'Budget approved with a 5% cut.']) {
    await json(['turn', 'append', topics.id, '--text', long(text)], db);
  }
  await json(['compact', topics.id], db);
  const shown = await json<Array<{ id: string }>>(['topics', topics.id], db);
  await json(['drop-topic', (shown[0] as { id: string }).id, '--session', topics.id], db);

  // A fork of it before its second compaction, with turns and a compaction of its own.
  const fork = await json<{ sessionId: string }>(['fork', turnIds[6] as string, '--label', 'fork'], db);
  for (const text of ['In the fork: deploy postponed to Monday.', 'And the budget review too.', 'Deploy Monday confirmed.']) {
    await json(['turn', 'append', fork.sessionId, '--text', long(text)], db);
  }
  await json(['compact', fork.sessionId], db);

  // A flat session, compacted, with a full fork.
  const flat = await json<SessionOut>(['session', 'create', '--keep', '30', '--strategy', 'flat'], db);
  let flatTurn = '';
  for (let index = 0; index < 6; index += 1) {
    const turn = await json<{ id: string }>(
      ['turn', 'append', flat.id, '--text', long(`Flat turn ${index}: notes about the incident timeline and the deploy.`)],
      db,
    );
    if (index === 2) flatTurn = turn.id;
  }
  await json(['compact', flat.id], db);
  await json(['fork', flatTurn, '--full'], db);
}

/** Everything the CLI reads back from a ledger; `engineNeutral` leaves out what ranks by engine. */
async function readable(db: string, { engineNeutral }: { engineNeutral: boolean }) {
  const sessions = await json<SessionOut[]>(['session', 'list', '--limit', '1000'], db);
  const perSession = [];
  for (const session of sessions) {
    const head = session.headTurnId;
    perSession.push({
      show: await json(['session', 'show', session.id], db),
      tree: session.parentSessionId === null ? await json(['tree', session.id], db) : null,
      history: head ? await json(['history', head], db) : null,
      context: head ? await json(['context', head], db) : null,
      budgeted: head ? await json(['context', head, '--budget', '200'], db) : null,
      queried:
        head && session.compactionStrategy === 'union-find'
          ? await json(['context', head, '--query', 'budget forecast'], db)
          : null,
      topics: session.compactionStrategy === 'union-find' ? await json(['topics', session.id], db) : null,
    });
  }
  const channels = ['mail', 'slack:#eng'];
  const events = [];
  for (const channel of channels) events.push(await json(['events', 'list', '--channel', channel], db));
  const search = async (argv: string[]) => {
    const page = await json<{ turns?: Array<{ turnId: string }>; events?: Array<{ event: { id: string } }> }>(
      ['search', ...argv, '--limit', '200'],
      db,
    );
    // Scores and snippets are each engine's own (bm25, ts_rank_cd): across engines, the hits.
    return engineNeutral
      ? page
      : JSON.stringify(page)
          .match(/"(turnId|id)":"[^"]+"/g)
          ?.sort();
  };
  const doctor = await json<Record<string, unknown>>(['doctor'], db);
  return {
    sessions,
    perSession,
    events,
    verify: await json(['events', 'verify'], db),
    doctor,
    searches: [await search(['deploy']), await search(['budget', '--raw']), await search(['deploy', '--channel', 'slack:#eng'])],
  };
}

beforeAll(async () => {
  temp = tempFolder();
  original = path.join(temp.folder, 'original.db');
  await buildLedger(original);
});

afterAll(() => temp?.cleanup());

describe('nexus copy SQLite → SQLite', () => {
  it('copies everything readable, prints a summary with counts, and the copy passes verify and doctor', async () => {
    const copy = path.join(temp.folder, 'copy.db');
    const run = await runCli(['copy', '--from', original, '--to', copy]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^copied .*original\.db to .*copy\.db: \d+ sessions, \d+ turns \(\d+ compactions\), [1-9]\d* forests?, 4 events on 2 channels, 3 event links, [1-9]\d* topic drops?, \d+ transcript sources \([1-9]\d* lines\), 0 embeddings$/m,
    );
    expect(run.stderr).toBe(''); // not a terminal: no progress drawn
    const before = await readable(original, { engineNeutral: true });
    expect(before.sessions.length).toBeGreaterThanOrEqual(6);
    expect((before.verify as { ok: boolean }).ok).toBe(true);
    expect(await readable(copy, { engineNeutral: true })).toEqual(before);
  });

  it('--json returns the counts; the copy takes new turns and events like the original', async () => {
    const copy = path.join(temp.folder, 'copy-json.db');
    const result = await json<{ copied: { sessions: number; events: number; turns: number } }>(
      ['copy', '--from', original, '--to', copy],
      original,
    );
    const sessions = await json<SessionOut[]>(['session', 'list', '--limit', '1000'], original);
    expect(result.copied.sessions).toBe(sessions.length);
    expect(result.copied.events).toBe(4);
    const session = sessions.find(
      (candidate) => candidate.compactionStrategy === 'union-find' && candidate.parentSessionId === null,
    );
    const appended = await json<{ parentTurnId: string }>(
      ['turn', 'append', session?.id as string, '--text', 'after the copy'],
      copy,
    );
    expect(appended.parentTurnId).toBe(session?.headTurnId);
    const event = await json<{ event: { seq: number } }>(
      ['events', 'append', '--channel', 'slack:#eng', '--external-id', 'm4', '--text', 'later'],
      copy,
    );
    expect(event.event.seq).toBe(4);
    expect((await json<{ ok: boolean }>(['events', 'verify'], copy)).ok).toBe(true);
  });

  it('draws progress on stderr when it is a terminal: turns copied of the total, sessions, events', async () => {
    let stdout = '';
    let stderr = '';
    const code = await main(['copy', '--from', original, '--to', path.join(temp.folder, 'copy-terminal.db')], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: Readable.from(['']),
      stderrIsTerminal: true,
      env: {},
    });
    expect(code, stderr).toBe(0);
    const total = /(\d+) turns \(/.exec(stdout)?.[1];
    expect(total).toBeDefined();
    expect(stderr).toContain('copying');
    expect(stderr).toContain(`${total}/${total} turns`);
    expect(stderr).toMatch(/\d+ sessions \| 4 events \| done/);
  });

  it('refuses a target that holds a ledger, and leaves it as it was', async () => {
    const other = path.join(temp.folder, 'other.db');
    await json(['session', 'create', '--label', 'mine'], other);
    const run = await runCli(['copy', '--from', original, '--to', other]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^nexus: Cannot copy into .*other\.db: it already holds sessions\. .*empty ledger only/);
    const sessions = await json<Array<{ label: string }>>(['session', 'list'], other);
    expect(sessions.map((session) => session.label)).toEqual(['mine']);
  });

  it('refuses a missing source, the same ledger twice and a missing option, as usage mistakes where they are', async () => {
    const missing = await runCli(['copy', '--from', path.join(temp.folder, 'nope.db'), '--to', path.join(temp.folder, 'x.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.db/);
    const same = await runCli(['copy', '--from', original, '--to', original]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/same ledger/);
    const half = await runCli(['copy', '--from', original]);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--to/);
  });

  it('--help says what is copied, that the target must be empty, and shows both directions', async () => {
    const run = await runCli(['copy', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: nexus copy \[options\]/);
    expect(run.stdout).toMatch(/--from FILE\|URL/);
    expect(run.stdout).toMatch(/--to FILE\|URL/);
    expect(run.stdout).toMatch(/must be empty/);
    expect(run.stdout).toMatch(/--from \.\/nexus\.db --to postgres:\/\//);
    expect((await runCli(['--help'])).stdout).toMatch(/^ {2}copy {2,}Copy a whole ledger/m);
  });
});

if (server) {
  describe('nexus copy SQLite → PostgreSQL → SQLite', () => {
    it('carries every row both ways: both copies read like the original, verify and doctor pass on each', async () => {
      const url = await freshPostgresDatabase(server, 'copy_cli');
      const there = await runCli(['copy', '--from', original, '--to', url]);
      expect(there.code, there.stderr).toBe(0);
      const back = path.join(temp.folder, 'back.db');
      const again = await runCli(['copy', '--from', url, '--to', back]);
      expect(again.code, again.stderr).toBe(0);
      // The same counts each way.
      const counts = (stdout: string) => stdout.split('\n')[0]?.replace(/^copied .*?: /, '');
      expect(counts(again.stdout)).toBe(counts(there.stdout));

      const before = await readable(original, { engineNeutral: true });
      const onPostgres = await readable(url, { engineNeutral: false });
      expect((onPostgres.verify as { ok: boolean }).ok).toBe(true);
      expect(onPostgres.doctor).toMatchObject({ ok: true });
      expect({ ...onPostgres, doctor: null }).toEqual({
        ...(await readable(original, { engineNeutral: false })),
        doctor: null,
      });
      // Back on SQLite it is the original again, search ranks and snippets included.
      expect(await readable(back, { engineNeutral: true })).toEqual(before);

      // A copy into a PostgreSQL database that holds a ledger is refused.
      const refused = await runCli(['copy', '--from', back, '--to', url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/already holds sessions and events/);
    });
  });
} else {
  describe.skip('nexus copy SQLite → PostgreSQL → SQLite (no PostgreSQL server here)', () => {});
}
