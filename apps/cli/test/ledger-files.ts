// Files for the tests that run `nexus` on what is not a healthy ledger: a real ledger built by the
// library, damaged copies of it (cut short, a page overwritten), other programs' databases, and a
// way to run the built CLI as an unprivileged user, where file permissions are what they say
// (root writes a chmod 444 file as if it were 644).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { openEventsLedger } from '@agent-ledger/events-ledger';
import BetterSqlite from 'better-sqlite3';
import { BUILT_CLI } from './built-cli.ts';

export interface BuiltLedger {
  file: string;
  sessionId: string;
  headTurnId: string;
}

/** A ledger with one session of a few turns (one says "pgbouncer") and one event, closed: no side files. */
export async function buildLedger(file: string): Promise<BuiltLedger> {
  const ledger = openAgentsLedger(file);
  const session = await ledger.createSession({ label: 'ops' });
  let headTurnId = '';
  for (const text of ['pgbouncer 1.22.1 runs on db-2', 'noted: db-2 runs pgbouncer', 'and the replica is db-3']) {
    headTurnId = (await ledger.appendTurn(session.id, { role: 'user', content: text })).id;
  }
  await ledger.close();
  const events = openEventsLedger(file);
  await events.append({ channel: 'ops', externalId: 'm-1', kind: 'message', payload: { text: 'pgbouncer restarted' } });
  await events.close();
  return { file, sessionId: session.id, headTurnId };
}

/** The file and its side files, byte for byte ('absent' where there is none). */
export function fingerprint(file: string): Record<string, string> {
  return Object.fromEntries(
    ['', '-wal', '-shm', '-journal'].map((suffix) => [
      suffix || 'file',
      existsSync(file + suffix)
        ? createHash('sha256')
            .update(readFileSync(file + suffix))
            .digest('hex')
        : 'absent',
    ]),
  );
}

export function copyTo(source: string, target: string, length?: number): string {
  const bytes = readFileSync(source);
  writeFileSync(target, length === undefined ? bytes : bytes.subarray(0, length));
  return target;
}

/** A copy of the ledger with the root page of agent_turns overwritten by a repeating byte pattern. */
export function withPageOverwritten(source: string, target: string): string {
  copyTo(source, target);
  // Read-write, so that closing removes the side files the reading made.
  const sqlite = new BetterSqlite(target);
  const { pageno } = sqlite.prepare("SELECT pageno FROM dbstat WHERE name = 'agent_turns' ORDER BY pageno LIMIT 1").get() as {
    pageno: number;
  };
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  sqlite.close();
  const bytes = readFileSync(target);
  for (let offset = (pageno - 1) * pageSize; offset < pageno * pageSize; offset += 1) bytes[offset] = (offset * 37 + 11) & 0xff;
  writeFileSync(target, bytes);
  return target;
}

/** Another program's SQLite database, in the journal mode it chose. */
export function foreignDatabase(target: string, journal: 'wal' | 'delete'): string {
  const other = new BetterSqlite(target);
  other.pragma(`journal_mode = ${journal}`);
  other.exec(
    "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org');",
  );
  other.close();
  return target;
}

export interface CliError {
  code: string;
  message: string;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The error a failed command printed with --json. */
  error(): CliError;
}

const NOBODY = 65534;

/** Whether runs `asUser: 'unprivileged'` need setpriv: only root ignores file permissions. */
export const RUNNING_AS_ROOT = process.getuid?.() === 0;

/** Runs the built `nexus`; as an unprivileged user (via setpriv, when this is root) if asked. */
export function runNexus(args: string[], options: { unprivileged?: boolean; env?: Record<string, string> } = {}): Promise<Run> {
  const command = [process.execPath, BUILT_CLI, ...args];
  const [file, ...argv] =
    options.unprivileged && RUNNING_AS_ROOT
      ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...command]
      : command;
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), ...options.env };
  return new Promise((resolve) => {
    execFile(file as string, argv, { env, maxBuffer: 16 * 1024 * 1024 }, (failure, stdout, stderr) => {
      const code = failure ? (typeof failure.code === 'number' ? failure.code : 1) : 0;
      // A command that streams (export) may have written part of its output before it failed.
      const error = () => (JSON.parse(stdout.slice(stdout.lastIndexOf('{\n  "error"'))) as { error: CliError }).error;
      resolve({ code, stdout, stderr, error });
    });
  });
}

/** Makes `folder` and the folders above it in the temp directory reachable by the unprivileged user. */
export function openToOthers(folder: string): void {
  chmodSync(folder, 0o755);
}
