// `nexus checkpoint` and `nexus verify` run as a user runs them (the built CLI, a real file): an
// untouched ledger verifies; a turn edited behind the ledger's back fails doctor and verify; turns
// cut from the end with the head moved back pass a chain check (what remains is a valid chain) and
// fail against the checkpoint taken before; `events verify` reads the same checkpoint file.

import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

function nexus(args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BUILT_CLI, ...args], { encoding: 'utf8' });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A ledger with one session of four turns and one event; returns its path and the turn ids. */
function ledgerWithTurns(): { dbPath: string; folder: string; turns: string[]; sessionId: string } {
  const { folder, dbPath, cleanup } = tempFolder();
  cleanups.push(cleanup);
  const created = JSON.parse(
    execFileSync(process.execPath, [BUILT_CLI, 'session', 'create', '--db', dbPath, '--json'], { encoding: 'utf8' }),
  );
  const sessionId = created.id as string;
  const turns: string[] = [];
  for (const [role, text] of [
    ['user', 'Deploy the billing service to staging.'],
    ['assistant', 'Deployed build 4471 to staging.'],
    ['user', 'Roll it out to production.'],
    ['assistant', 'Rolled out to production at 14:02.'],
  ])
    turns.push(
      JSON.parse(
        execFileSync(
          process.execPath,
          [BUILT_CLI, 'turn', 'append', sessionId, '--role', role as string, '--text', text as string, '--db', dbPath, '--json'],
          {
            encoding: 'utf8',
          },
        ),
      ).id,
    );
  execFileSync(process.execPath, [
    BUILT_CLI,
    'events',
    'append',
    '--channel',
    'ops',
    '--external-id',
    'e1',
    '--payload',
    '{"text":"paged"}',
    '--db',
    dbPath,
  ]);
  return { dbPath, folder, turns, sessionId };
}

function tamper(dbPath: string, statements: string): void {
  const sqlite = openRawSqlite(dbPath);
  sqlite.pragma('foreign_keys = OFF');
  for (const name of sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'agent_turns_no_%'")
    .pluck()
    .all())
    sqlite.exec(`DROP TRIGGER "${name}"`);
  sqlite.exec(statements);
  sqlite.exec("INSERT INTO turns_fts (turns_fts) VALUES ('rebuild')");
  sqlite.close();
}

describe('nexus checkpoint and nexus verify', () => {
  it('verify passes an untouched ledger, with and without the checkpoint, and counts what it checked', () => {
    const { dbPath, folder } = ledgerWithTurns();
    const checkpoint = nexus(['checkpoint', '--db', dbPath]);
    expect(checkpoint.status).toBe(0);
    const parsed = JSON.parse(checkpoint.stdout);
    expect(parsed.format).toBe('nexus-ledger-checkpoint/v1');
    expect(parsed.sessions).toHaveLength(1);
    expect(parsed.channels).toHaveLength(1);
    const file = path.join(folder, 'checkpoint.json');
    writeFileSync(file, checkpoint.stdout);
    const plain = nexus(['verify', '--db', dbPath]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^ok: 4 turns in 1 sessions and 1 events in 1 channels, every link holds\n$/);
    const anchored = nexus(['verify', '--checkpoint', file, '--db', dbPath]);
    expect(anchored.status, anchored.stderr).toBe(0);
    expect(anchored.stdout).toContain('every head of the checkpoint (1 sessions, 1 channels) is still there');
    expect(nexus(['events', 'verify', '--checkpoint', file, '--db', dbPath]).status).toBe(0);
  });

  it('an edited turn fails doctor and verify, naming the turn', () => {
    const { dbPath, turns } = ledgerWithTurns();
    tamper(dbPath, `UPDATE agent_turns SET content = '[{"type":"text","text":"Deployed nothing."}]' WHERE id = '${turns[1]}'`);
    const doctor = nexus(['doctor', '--db', dbPath]);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain(`TURN_HASH_MISMATCH: turn ${turns[1]}`);
    const verify = nexus(['verify', '--db', dbPath, '--json']);
    expect(verify.status).toBe(1);
    expect(JSON.parse(verify.stdout).problems.map((problem: { code: string }) => problem.code)).toEqual(['TURN_HASH_MISMATCH']);
  });

  it('turns cut from the end with the head moved back pass the chain check and fail against the checkpoint', () => {
    const { dbPath, folder, turns, sessionId } = ledgerWithTurns();
    const file = path.join(folder, 'checkpoint.json');
    writeFileSync(file, nexus(['checkpoint', '--db', dbPath]).stdout);
    tamper(
      dbPath,
      `UPDATE agent_sessions SET head_turn_id = '${turns[1]}' WHERE id = '${sessionId}';` +
        `DELETE FROM agent_turns WHERE id IN ('${turns[2]}', '${turns[3]}');`,
    );
    // What remains is a valid chain with its head at its end: only the checkpoint can tell.
    expect(nexus(['verify', '--db', dbPath]).status).toBe(0);
    const anchored = nexus(['verify', '--checkpoint', file, '--db', dbPath]);
    expect(anchored.status).toBe(1);
    expect(anchored.stdout).toContain(`TURNS_CUT: turn ${turns[3]}`);
  });

  it('refuses a checkpoint file that is not one, saying so', () => {
    const { dbPath, folder } = ledgerWithTurns();
    const file = path.join(folder, 'not-a-checkpoint.json');
    writeFileSync(file, '{"format":"something-else"}');
    const result = nexus(['verify', '--checkpoint', file, '--db', dbPath]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file} is not a checkpoint: expected "format": "nexus-ledger-checkpoint/v1"`);
  });

  it('has --help for both commands', () => {
    expect(nexus(['verify', '--help']).stdout).toContain('--checkpoint FILE');
    expect(nexus(['checkpoint', '--help']).stdout).toContain('nexus verify --checkpoint FILE');
  });
});
