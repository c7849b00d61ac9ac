// Concurrent imports of one transcript are one import: Claude Code runs matching hooks in parallel,
// and a Stop hook's import can overlap the next prompt's catch-up. Several `nexus import` processes
// of the same file at once (the built CLI, as a hook runs it) leave exactly what one import leaves,
// on SQLite and on PostgreSQL. Before the import lease, two runs of a 20,000-line transcript left 12
// sessions and 22,792 turns.

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const server = inject('postgresUrl');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LINES = 3_000;
const PROCESSES = 4;

let temp: ReturnType<typeof tempFolder>;
let transcript = '';
beforeEach(() => {
  temp = tempFolder();
  transcript = path.join(temp.folder, 'session.jsonl');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/synthetic-claude-transcript.mjs'), transcript, String(LINES)]);
});
afterEach(() => temp.cleanup());

async function importAtOnce(database: string, processes: number): Promise<number[]> {
  const children = Array.from({ length: processes }, () =>
    spawn(process.execPath, [BUILT_CLI, 'import', transcript, '--db', database, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  return Promise.all(
    children.map(async (child) => {
      const [code] = (await once(child, 'close')) as [number];
      return code;
    }),
  );
}

/** Every session's label and its line's turns, as text: what a ledger holds, to compare two. */
async function holdings(database: string): Promise<{ sessions: number; turns: number; lines: string[] }> {
  const ledger = openAgentsLedger(database, { mustExist: true });
  try {
    const sessions = await ledger.listSessions({ limit: 100, offset: 0 });
    const lines: string[] = [];
    let turns = 0;
    for (const session of sessions) {
      for await (const turn of ledger.getFullHistory(session.headTurnId as string)) {
        turns += 1;
        lines.push(
          `${session.label} ${turn.turnType} ${JSON.stringify(turn.turnType === 'compaction' ? turn.summary : turn.content)}`,
        );
      }
    }
    return { sessions: sessions.length, turns, lines };
  } finally {
    await ledger.close();
  }
}

async function checkOn(databases: { one: string; many: string }): Promise<void> {
  expect(await importAtOnce(databases.one, 1)).toEqual([0]);
  expect(await importAtOnce(databases.many, PROCESSES)).toEqual(Array(PROCESSES).fill(0));
  const one = await holdings(databases.one);
  const many = await holdings(databases.many);
  expect(one.sessions).toBe(1);
  expect(many.sessions).toBe(one.sessions);
  expect(many.turns).toBe(one.turns);
  expect(many.lines).toEqual(one.lines);
  // And the ledger is sound: no dangling chain, one session, search indexes in step.
  const doctor = JSON.parse(
    execFileSync(process.execPath, [BUILT_CLI, 'doctor', '--db', databases.many, '--json'], { encoding: 'utf8' }),
  ) as { problems: unknown[] };
  expect(doctor.problems).toEqual([]);
}

describe(`${PROCESSES} concurrent imports of one ${LINES}-line transcript`, () => {
  it('on SQLite: exactly what one import leaves', async () => {
    await checkOn({ one: path.join(temp.folder, 'one.db'), many: path.join(temp.folder, 'many.db') });
  });

  it.skipIf(!server)('on PostgreSQL: exactly what one import leaves', async () => {
    const one = await freshPostgresDatabase(server as string, 'import_one');
    const many = await freshPostgresDatabase(server as string, 'import_many');
    await checkOn({ one, many });
  });
});
