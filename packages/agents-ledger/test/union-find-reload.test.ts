// A union-find conversation interrupted halfway: the database is closed and a new process, with no
// forest in memory, replays the stored forest and goes on. Its topics, contexts and compactions
// must be those of the same conversation run without a break.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentsLedger } from '../src/index.ts';
import { openTempLedger, SMALL_SETTINGS, sessionHistory, type TempLedger } from './builders.ts';
import { describeOutcome, HALF, openScriptLedger, runSteps, SCRIPT, startScript } from './fixtures/union-find-script.ts';
import { appendTopics, roundRobinPlan, TOPIC_NAMES } from './topic-builders.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONTINUE = fileURLToPath(new URL('./fixtures/union-find-continue.ts', import.meta.url));

const cleanups: (() => void)[] = [];
let temp: TempLedger | undefined;
afterEach(() => {
  temp?.cleanup();
  temp = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-reload-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'ledger.db');
}

function open(file: string, used?: { turns: number; sessions: number }): AgentsLedger {
  const ledger = openScriptLedger(file, used);
  cleanups.push(() => {
    try {
      ledger.close();
    } catch {
      // already closed
    }
  });
  return ledger;
}

/** Runs the continuation child on `file` and returns what it printed. */
function continueInChild(file: string, sessionId: string, from: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CONTINUE, file, sessionId, String(from)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/** The whole script in one ledger, never closed: every forest comes from memory. */
async function uninterrupted() {
  const file = tempFile();
  const ledger = open(file);
  const sessionId = await startScript(ledger);
  await runSteps(ledger, sessionId, 0, SCRIPT.length);
  return { file, ledger, sessionId };
}

describe('a union-find conversation continued in another process', () => {
  it('ends with the same topics, contexts and compactions as the uninterrupted run', async () => {
    const whole = await uninterrupted();
    const expected = await describeOutcome(whole.ledger, whole.sessionId);

    const file = tempFile();
    const first = open(file);
    const sessionId = await startScript(first);
    expect(sessionId).toBe(whole.sessionId);
    await runSteps(first, sessionId, 0, HALF);
    // The first half compacted already: the child has a stored forest to pick up.
    expect((await first.topics(sessionId)).length).toBeGreaterThan(0);
    const compactedBefore = (await sessionHistory(first, sessionId)).filter((turn) => turn.turnType === 'compaction').length;
    first.close();

    const continued = await continueInChild(file, sessionId, HALF);
    expect(continued).toEqual(expected);

    // The script is one that exercises what the comparison is about.
    const outcome = expected as {
      history: Array<{ turnType: string; strategy?: string }>;
      topics: Array<{ dropped: boolean }>;
      contexts: Array<{ topics: Array<{ similarity: number | null }>; omittedTopicIds: string[] }>;
      doctor: unknown[];
    };
    const compactions = outcome.history.filter((turn) => turn.turnType === 'compaction');
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // The child compacted too, on the forest it read back from the file.
    expect(compactions.length).toBeGreaterThan(compactedBefore);
    expect(compactions.every((turn) => turn.strategy === 'union-find')).toBe(true);
    expect(outcome.topics.length).toBeGreaterThanOrEqual(3);
    expect(outcome.contexts.some((context) => context.omittedTopicIds.length > 0)).toBe(true);
    expect(outcome.contexts.some((context) => context.topics.some((topic) => (topic.similarity ?? 0) > 0))).toBe(true);
    expect(outcome.doctor).toEqual([]);

    // Reading the finished file from scratch, in this process, gives the same again.
    expect(await describeOutcome(open(file), sessionId)).toEqual(expected);
  });

  // Centroids reloaded in another term order than the live ones once summed each cosine in another
  // order: the same query then got similarities differing in the last bit after a reopen.
  it('a reopened ledger gives the very same context for a query, similarities to the last bit', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.createSession({ settings: SMALL_SETTINGS, strategy: 'union-find' });
    let start = 0;
    for (let round = 0; round < 6; round += 1) {
      const plan = roundRobinPlan(
        2,
        1,
        [...TOPIC_NAMES]
          .reverse()
          .slice(round % 3)
          .concat(TOPIC_NAMES),
      );
      await appendTopics(ledger, session.id, plan, start);
      start += plan.length;
      if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id);
    }
    const head = (await ledger.getSession(session.id)).headTurnId as string;
    const queries = ['postgres vacuum wal', 'grafana scrape', 'restic offsite glacier postgres', 'snapshot'];
    const live = [];
    for (const query of queries) live.push(await ledger.buildContext(head, { query }));
    const reopened = temp.reopen();
    const replayed = [];
    for (const query of queries) replayed.push(await reopened.buildContext(head, { query }));
    expect(replayed).toEqual(live);
    const similarities = live.flatMap((context) => context.topics.map((topic) => topic.similarity ?? 0));
    expect(similarities.filter((similarity) => similarity > 0).length).toBeGreaterThanOrEqual(4);
  });
});
