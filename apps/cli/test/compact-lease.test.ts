// One compactor per session, across processes: two `nexus compact` processes of the built CLI, as two
// runtimes or a runtime and a person would start them, compact the same session against a slow
// loopback Messages API that counts the summarizer's calls. One calls the model; the other waits for
// its lease and reports the same compaction. On a SQLite file and on the run's PostgreSQL server.

import { spawn } from 'node:child_process';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { type LoopbackApi, startLoopbackApi } from '@agent-ledger/loopback-api';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { SUMMARY_SYSTEM_PROMPT } from '@agent-ledger/summarizers';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const postgresServer = inject('postgresUrl');
const SUMMARY = 'The team pinned MySQL 5.7.44 on db-3 and moves to Postgres next quarter.';

let api: LoopbackApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A session over its compaction threshold, written through the library, closed again. */
async function sessionOverThreshold(location: string): Promise<string> {
  const ledger = openAgentsLedger(location);
  try {
    const session = await ledger.createSession({ settings: { contextWindow: 1200, reserveTokens: 120, keepRecentTokens: 300 } });
    for (let index = 0; index < 90; index += 1) {
      const role = index % 2 === 0 ? 'user' : 'assistant';
      await ledger.appendTurn(session.id, {
        role,
        content: `Note ${index}: the migration of database db-${index % 5} is planned for week ${index}.`,
      });
    }
    expect(await ledger.shouldCompact(session.id)).toBe(true);
    return session.id;
  } finally {
    await ledger.close();
  }
}

function compactInProcess(location: string, sessionId: string, baseUrl: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [BUILT_CLI, 'compact', sessionId, '--db', location, '--trigger', 'threshold', '--json'],
      {
        env: { ...process.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: baseUrl, NEXUS_DB: '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function twoCompactors(location: string) {
  const sessionId = await sessionOverThreshold(location);
  // Slow enough that the second process starts while the first one's model call is still out.
  api = await startLoopbackApi({ respond: () => ({ kind: 'text', text: SUMMARY, delayMs: 1500 }) });
  const runs = await Promise.all([
    compactInProcess(location, sessionId, api.url),
    compactInProcess(location, sessionId, api.url),
  ]);
  for (const run of runs) expect(run.code, run.stderr).toBe(0);
  type Reported = { id: string; summary: string; summarizer: string };
  const [first, second] = runs.map((run) => JSON.parse(run.stdout) as Reported) as [Reported, Reported];
  const summaryCalls = api.requests.filter(
    (request) => request.route === 'messages' && request.body.system === SUMMARY_SYSTEM_PROMPT,
  );
  const ledger = openAgentsLedger(location, { mustExist: true });
  try {
    const head = (await ledger.getSession(sessionId)).headTurnId as string;
    const compactions = [];
    for await (const turn of ledger.getFullHistory(head)) if (turn.turnType === 'compaction') compactions.push(turn.id);
    return { first, second, summaryCalls, compactions, doctor: await ledger.doctor() };
  } finally {
    await ledger.close();
  }
}

describe('two processes compacting one session', () => {
  it('on a SQLite file: one summarizer call, one compaction, both processes report it', async () => {
    const temp = tempFolder();
    const outcome = await twoCompactors(temp.dbPath).finally(() => temp.cleanup());
    expect(outcome.summaryCalls).toHaveLength(1);
    expect(outcome.second.id).toBe(outcome.first.id);
    expect(outcome.first.summary).toContain('5.7.44');
    expect(outcome.compactions).toEqual([outcome.first.id]);
    expect(outcome.doctor).toEqual([]);
  }, 60_000);

  it.skipIf(postgresServer === null)(
    `on PostgreSQL: the same${postgresServer === null ? ' (skipped: no PostgreSQL server here, apt-get install postgresql)' : ''}`,
    async () => {
      const outcome = await twoCompactors(await freshPostgresDatabase(postgresServer as string, 'compact-lease'));
      expect(outcome.summaryCalls).toHaveLength(1);
      expect(outcome.second.id).toBe(outcome.first.id);
      expect(outcome.compactions).toEqual([outcome.first.id]);
      expect(outcome.doctor).toEqual([]);
    },
    60_000,
  );
});
