// The CLI on PostgreSQL: the same commands with `--db postgres://…` and with NEXUS_DB=postgres://…
// print what they print on a SQLite file (ids, times and hashes aside); a read-only command on a
// database that holds no ledger is DATABASE_NOT_FOUND and creates nothing; a password in the URL
// is never printed, in results, errors or the startup line of `nexus mcp`.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { main } from '../src/main.ts';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const server = inject('postgresUrl');
const BIN = BUILT_CLI;
const PASSWORD = 'pw-Secret-4711';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in-process, with `--db location` or (when `viaEnv`) NEXUS_DB=location. */
async function cli(argv: string[], location: string, viaEnv: boolean): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(viaEnv ? argv : [...argv, '--db', location], {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: Readable.from(['']),
    stderrIsTerminal: false,
    env: viaEnv ? { NEXUS_DB: location } : {},
  });
  return { code, stdout, stderr };
}

/** With a password in a postgres:// URL (the test server trusts loopback, so any password works). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

/** A database's location as the CLI may print it: the URL, the URL with its password masked, or the file. */
function locationsOf(location: string): string[] {
  if (!location.startsWith('postgres')) return [location];
  const masked = new URL(location);
  if (masked.password) masked.password = '***';
  return [location, masked.toString()];
}

/**
 * Ids, times, hashes, locations and temp folders differ between runs: each becomes a placeholder,
 * ids numbered by first sight.
 */
function normalizer(locations: readonly string[], folder: string) {
  const ids = new Map<string, string>();
  return (text: string) =>
    locations
      .reduce((out, location) => out.split(location).join('<db>'), text)
      // A masked URL (***) is shell-quoted in hints, a plain path is not.
      .split("'<db>'")
      .join('<db>')
      .split(folder)
      .join('<dir>')
      .replace(/\b([a-z]{1,2})_[A-Za-z0-9]{12}\b/g, (id, kind: string) => {
        if (!ids.has(id)) ids.set(id, `<${kind}${ids.size + 1}>`);
        return ids.get(id) as string;
      })
      .replace(/\b[0-9a-f]{64}\b/g, '<hash>')
      .replace(/\bhash [0-9a-f]{16}…/g, 'hash <hash>…')
      // An export's size moves with the summary's (see SUMMARY_DEPENDENT).
      .replace(/\(\d+ bytes;/g, '(<n> bytes;')
      // Times (ms) as a number still, so JSON stays JSON.
      .replace(/\b1[6-9]\d{11}\b/g, '1000000000000')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<iso>')
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d/g, '<date>');
}

/**
 * Search output without what each engine computes its own way (scores, snippet cuts, the order of
 * hits that rank alike): the hits as a sorted set; compactions left out (whether one matches
 * depends on its summary's wording: see SUMMARY_DEPENDENT).
 */
function searchHits(stdout: string): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value))
      return value
        .filter((item) => (item as { turnType?: string } | null)?.turnType !== 'compaction')
        .map(strip)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !['score', 'snippet', 'cursor', 'nextCursor'].includes(key))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return JSON.stringify(strip(JSON.parse(stdout)), null, 2);
}

/**
 * The offline summarizer fits its summary to a token budget that counts the turn ids it cites, and
 * the CLI's ids are random: the summary's wording and size vary from run to run on any engine. These
 * steps are compared without them (what was cut, and where, still is).
 */
const SUMMARY_DEPENDENT = ['compact', 'context (compacted)', 'history'];
const SUMMARY_FIELDS = ['summary', 'system', 'tokens', 'tokensAfter', 'metadata', 'usage', 'tokenCount', 'cumulativeTokens'];

function withoutSummary(stdout: string): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    const compaction = (value as { turnType?: string }).turnType === 'compaction';
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !(SUMMARY_FIELDS.includes(key) && (compaction || key === 'system' || key === 'tokens')))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  // history --json prints one turn a line.
  const parsed = stdout.trim().startsWith('[') || stdout.trim().startsWith('{') ? tryParse(stdout) : undefined;
  if (parsed !== undefined) return JSON.stringify(strip(parsed), null, 2);
  return stdout
    .split('\n')
    .map((line) => {
      const each = tryParse(line.replace(/,$/, ''));
      return each === undefined ? line : JSON.stringify(strip(each));
    })
    .join('\n');
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Everything the CLI printed on PostgreSQL, as printed (to look for the password in). */
const printed: string[] = [];

const PROSE = [
  'The staging database listens on port 5432 and the zebrafish service reads from it.',
  'Noted: staging on 5432. The migration plan keeps the old schema for a week.',
  'We decided to deploy the narwhal build on Friday after the review.',
  'The review found a retry bug in the cache layer; the fix is in the next build.',
  'Backups run nightly with restic; retention is thirty days offsite.',
  'Prometheus alerts page the on-call engineer when the error budget burns fast.',
];

/** One scenario through the CLI; returns what each step printed, normalized, keyed by step. */
async function scenario(location: string, importInto: string, viaEnv: boolean, folder: string): Promise<Record<string, Run>> {
  const normalize = normalizer([...locationsOf(location), ...locationsOf(importInto)], folder);
  const seen: Record<string, Run> = {};
  const step = async (name: string, argv: string[], where = location) => {
    const run = await cli(argv, where, viaEnv && where === location);
    printed.push(run.stdout, run.stderr);
    // Normalized first, so hits sort by their placeholders, not by random ids.
    // A compaction's summary, as an export writes it, moves with its wording too (SUMMARY_DEPENDENT).
    const normalized = normalize(run.stdout).replace(
      /"\[compaction (<t\d+>): summary of the turns through (<t\d+>)\]\\n(?:[^"\\]|\\.)*"/g,
      '"[compaction $1: summary of the turns through $2]"',
    );
    const stdout =
      run.code !== 0 || !argv.includes('--json')
        ? normalized
        : name.startsWith('search')
          ? searchHits(normalized)
          : SUMMARY_DEPENDENT.includes(name)
            ? withoutSummary(normalized)
            : normalized;
    seen[name] = { code: run.code, stdout, stderr: normalize(run.stderr) };
    return run;
  };
  const created = await step('session create', [
    'session',
    'create',
    '--label',
    'cli',
    '--context-window',
    '900',
    '--reserve',
    '100',
    '--keep',
    '200',
    '--json',
  ]);
  const sessionId = (JSON.parse(created.stdout) as { id: string }).id;
  const turns = Array.from({ length: 14 }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `${PROSE[index % PROSE.length]} Step ${index}.`,
  }));
  const file = path.join(folder, `turns-${viaEnv ? 'env' : 'flag'}-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(turns));
  const appended = await step('turn append (file)', ['turn', 'append', sessionId, '--file', file, '--json']);
  const appendedIds = (JSON.parse(appended.stdout) as Array<{ id: string }>).map((turn) => turn.id);
  await step('turn append', ['turn', 'append', sessionId, '--role', 'user', '--text', 'What port is staging on?', '--json']);
  await step('turn append (stale head)', [
    'turn',
    'append',
    sessionId,
    '--text',
    'late',
    '--expect-head',
    appendedIds[2] as string,
  ]);
  const session = await step('session show', ['session', 'show', sessionId, '--json']);
  const head = (JSON.parse(session.stdout) as { headTurnId: string }).headTurnId;
  await step('context', ['context', head, '--json']);
  await step('context (budget)', ['context', head, '--budget', '200', '--system', 'Be brief.']);
  await step('search', ['search', 'zebrafish', '--json']);
  await step('compact', ['compact', sessionId, '--json']);
  const afterCompact = JSON.parse((await cli(['session', 'show', sessionId, '--json'], location, viaEnv)).stdout) as {
    headTurnId: string;
  };
  await step('context (compacted)', ['context', afterCompact.headTurnId, '--json']);
  await step('search (resolved)', ['search', 'narwhal', '--json']);
  await step('search (raw)', ['search', 'narwhal', '--raw', '--json']);
  await step('history', ['history', afterCompact.headTurnId, '--json']);
  const fork = await step('fork', ['fork', appendedIds[9] as string, '--label', 'branch', '--json']);
  const forkId = (JSON.parse(fork.stdout) as { session?: { id: string }; id?: string }).session?.id ?? '';
  if (forkId)
    await step('turn append (fork)', ['turn', 'append', forkId, '--text', 'On the branch: roll back the narwhal build.']);
  await step('tree', ['tree', sessionId, '--json']);
  await step('tree (text)', ['tree', sessionId]);
  await step('events append', [
    'events',
    'append',
    '--channel',
    'discord:#ops',
    '--external-id',
    'm1',
    '--author',
    'dana',
    '--text',
    'zebrafish is down',
    '--occurred-at',
    '2026-01-02T03:04:05Z',
    '--json',
  ]);
  await step('events append (again)', [
    'events',
    'append',
    '--channel',
    'discord:#ops',
    '--external-id',
    'm1',
    '--author',
    'dana',
    '--text',
    'zebrafish is down',
    '--occurred-at',
    '2026-01-02T03:04:05Z',
    '--json',
  ]);
  await step('events append (second)', [
    'events',
    'append',
    '--channel',
    'discord:#ops',
    '--external-id',
    'm2',
    '--text',
    'back up',
  ]);
  await step('events list', ['events', 'list', '--channel', 'discord:#ops', '--json']);
  await step('events verify', ['events', 'verify', '--json']);
  await step('search (events)', ['search', 'zebrafish', '--json']);
  await step('doctor', ['doctor', '--json']);
  const exported = path.join(folder, `export-${viaEnv ? 'env' : 'flag'}-${Date.now()}.jsonl`);
  await step('export', ['export', sessionId, '--format', 'pi', '-o', exported]);
  await step('export (anthropic)', ['export', sessionId, '--format', 'anthropic']);
  await step('import', ['import', exported, '--json'], importInto);
  await step('session list (imported)', ['session', 'list', '--json'], importInto);
  await step('doctor (imported)', ['doctor', '--json'], importInto);
  await step('session show (missing)', ['session', 'show', 's_000000000000']);
  return seen;
}

describe.skipIf(server === null)(
  `the CLI on PostgreSQL prints what it prints on SQLite${server === null ? ' (skipped: no PostgreSQL server here, apt-get install postgresql)' : ''}`,
  () => {
    const temp = tempFolder();
    const runs: Record<'sqlite --db' | 'sqlite NEXUS_DB' | 'postgres --db' | 'postgres NEXUS_DB', Record<string, Run>> = {
      'sqlite --db': {},
      'sqlite NEXUS_DB': {},
      'postgres --db': {},
      'postgres NEXUS_DB': {},
    };

    beforeAll(async () => {
      const file = (name: string) => path.join(temp.folder, name);
      runs['sqlite --db'] = await scenario(file('flag.db'), file('flag-imported.db'), false, temp.folder);
      runs['sqlite NEXUS_DB'] = await scenario(file('env.db'), file('env-imported.db'), true, temp.folder);
      const url = withPassword(await freshPostgresDatabase(server as string, 'cli_flag'));
      const into = withPassword(await freshPostgresDatabase(server as string, 'cli_import'));
      runs['postgres --db'] = await scenario(url, into, false, temp.folder);
      const envUrl = withPassword(await freshPostgresDatabase(server as string, 'cli_env'));
      const envInto = withPassword(await freshPostgresDatabase(server as string, 'cli_env_import'));
      runs['postgres NEXUS_DB'] = await scenario(envUrl, envInto, true, temp.folder);
    }, 180_000);
    afterAll(() => temp.cleanup());

    it('every step ran on SQLite, and the ones that must succeed did', () => {
      const codes = Object.fromEntries(Object.entries(runs['sqlite --db']).map(([name, run]) => [name, run.code]));
      expect(codes).toMatchObject({ 'session create': 0, compact: 0, 'events verify': 0, doctor: 0, import: 0 });
      expect(codes['turn append (stale head)']).not.toBe(0);
      expect(runs['sqlite --db']['turn append (stale head)']?.stderr).toMatch(/moved: expected head <t\d+> but it is <t\d+>/);
      expect(Object.keys(runs['sqlite --db']).length).toBeGreaterThan(25);
    });

    for (const [engine, sqlite] of [
      ['postgres --db', 'sqlite --db'],
      ['postgres NEXUS_DB', 'sqlite NEXUS_DB'],
    ] as const) {
      it(`${engine}: every command prints what it prints on SQLite`, () => {
        const names = Object.keys(runs[sqlite]);
        expect(Object.keys(runs[engine])).toEqual(names);
        const differences = names.filter((name) => JSON.stringify(runs[engine][name]) !== JSON.stringify(runs[sqlite][name]));
        expect(differences, 'the steps that differ').toEqual([]);
      });
    }

    it('never prints the password of the URL (results, errors, hints)', () => {
      expect(printed.length).toBeGreaterThan(50);
      const leaks = printed.filter((text) => text.includes(PASSWORD));
      expect(leaks).toEqual([]);
    });
  },
);

describe.skipIf(server === null)('a PostgreSQL database that holds no ledger', () => {
  it('a read-only command says DATABASE_NOT_FOUND and creates nothing', async () => {
    const url = withPassword(await freshPostgresDatabase(server as string, 'cli_empty'));
    for (const argv of [['session', 'list'], ['doctor'], ['events', 'list', '--channel', 'c'], ['search', 'anything']]) {
      const run = await cli([...argv, '--json'], url, false);
      expect(run.code, argv.join(' ')).not.toBe(0);
      expect(JSON.parse(run.stdout), argv.join(' ')).toMatchObject({ error: { code: 'DATABASE_NOT_FOUND' } });
    }
    // Had any of them made the schema, this would now list an empty ledger rather than refuse.
    const again = await cli(['session', 'list', '--json'], url, true);
    expect(again.code).not.toBe(0);
    expect(again.stdout + again.stderr).toContain('DATABASE_NOT_FOUND');
    // A writing command makes the ledger; then the same read succeeds.
    expect((await cli(['session', 'create'], url, false)).code).toBe(0);
    const listed = await cli(['session', 'list', '--json'], url, false);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
  });

  it('a database that does not exist is an error that names no password', async () => {
    const url = new URL(withPassword(server as string));
    url.pathname = '/no_such_database_here';
    const run = await cli(['session', 'list'], url.toString(), false);
    expect(run.code).not.toBe(0);
    expect(run.stderr.length).toBeGreaterThan(0);
    expect(run.stderr + run.stdout).not.toContain(PASSWORD);
  });
});

describe.skipIf(server === null)('nexus mcp on a postgres:// URL', () => {
  it('its startup line names the database without the password', async () => {
    const url = withPassword(await freshPostgresDatabase(server as string, 'cli_mcp'));
    expect((await cli(['session', 'create'], url, false)).code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'mcp', '--db', url], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stderr.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(text.split('\n')[0] as string);
        });
        child.once('exit', () => reject(new Error(`mcp exited: ${text}`)));
      });
      expect(firstLine).toMatch(/^nexus mcp: serving postgres/);
      expect(firstLine).not.toContain(PASSWORD);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
