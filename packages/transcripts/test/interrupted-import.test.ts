// An import stopped between writing turns and recording their lines (a crash, ^C, a full disk)
// is made whole by the next run: the lines of the turns already written are recorded from the
// turns' own metadata, no turn is written twice, and the ledger ends as a clean import leaves it.

import path from 'node:path';
import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { countStored, describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const temps: TempLedger[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.cleanup();
});

function ledgerForTest(): AgentsLedger {
  const temp = openTempLedger();
  temps.push(temp);
  return temp.ledger;
}

/** The same ledger, but its import records refuse to record transcript lines: the run stops after its first write. */
function failingLineRecords(ledger: AgentsLedger): AgentsLedger {
  const imports = new Proxy(ledger.imports, {
    get(target, property, receiver) {
      if (property === 'recordTranscriptLines') return async () => Promise.reject(new Error('killed before the lines'));
      return Reflect.get(target, property, receiver);
    },
  });
  return { ...ledger, imports };
}

async function everyHistory(ledger: AgentsLedger, sessionIds: string[]): Promise<string[][]> {
  return Promise.all(sessionIds.map(async (sessionId) => (await historyOf(ledger, sessionId)).map(describeTurn)));
}

describe.each([
  ['Claude Code, with a subagent fork', path.join(FIXTURES, 'claude-code')],
  ['Codex, with a compaction and a fork file', path.join(FIXTURES, 'codex')],
])('an import interrupted after writing turns (%s)', (_name, folder) => {
  it('resumes without writing a turn twice, and ends as a clean import', async () => {
    const clean = ledgerForTest();
    const cleanRun = await importTranscripts({ ledger: clean, paths: [folder] });

    const ledger = ledgerForTest();
    await expect(importTranscripts({ ledger: failingLineRecords(ledger), paths: [folder] })).rejects.toThrow(
      'killed before the lines',
    );
    const interrupted = await countStored(ledger);
    expect(interrupted.turns).toBeGreaterThan(0);

    const resumed = await importTranscripts({ ledger, paths: [folder] });
    expect(resumed.sources.map((source) => source.key)).toEqual(cleanRun.sources.map((source) => source.key));
    expect(await countStored(ledger)).toEqual(await countStored(clean));
    expect(
      await everyHistory(
        ledger,
        resumed.sources.map((source) => source.sessionId),
      ),
    ).toEqual(
      await everyHistory(
        clean,
        cleanRun.sources.map((source) => source.sessionId),
      ),
    );
    expect(await ledger.doctor()).toEqual([]);

    // And every line is now known: a third run adds nothing.
    const again = await importTranscripts({ ledger, paths: [folder] });
    expect(again).toMatchObject({ turns: 0, compactions: 0, forks: 0 });
    expect(again.known).toBe(again.lines);
  });
});
