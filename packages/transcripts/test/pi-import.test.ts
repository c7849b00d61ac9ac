// pi sessions: the id/parentId tree (a branch becomes a fork, branch_summary a turn on it), a
// compaction with firstKeptEntryId, parallel tool results merged into one turn, settings entries
// left out, a malformed line reported.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const FILE = path.join(FIXTURES, 'pi', '2026-05-03T08-00-00-000Z_7b1f3c2e-0a4d-4e8b-9c1d-2f3a4b5c6d7e.jsonl');

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('pi import', () => {
  it('maps the tree: the compaction keeps from firstKeptEntryId, the branch is a fork with its summary', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const result = await importTranscripts({ ledger, paths: [FILE] });
    expect(result.problems).toEqual([{ path: FILE, line: 12, message: expect.stringContaining('is not valid JSON') }]);
    const sessionId = result.sources[0]?.sessionId as string;
    const history = await historyOf(ledger, sessionId);
    expect(history.map(describeTurn)).toEqual([
      'user: list the failing lint rules in the web package',
      `assistant: tool_use call_a bash {"command":"npx eslint ."} | tool_use call_b bash {"command":"npx stylelint '**/*.css'"}`,
      'user: tool_result call_a 12 problems: no-unused-vars (9), eqeqeq (3) | tool_result call_b error 2 problems: color-no-invalid-hex',
      'assistant: eslint: no-unused-vars 9, eqeqeq 3; stylelint: color-no-invalid-hex 2.',
      'user: fix eqeqeq first',
      'assistant: Replaced == with === in cart.js, price.js and util.js.',
      expect.stringMatching(/^compaction: ## Goal\nClean the web package's lint\./),
      'user: now the unused vars',
    ]);
    const compaction = history[6];
    if (compaction?.turnType !== 'compaction') throw new Error('expected a compaction');
    // pi keeps the entries from firstKeptEntryId (e0000007) up to the compaction.
    expect(compaction.firstKeptTurnId).toBe(history[4]?.id);
    expect(compaction.summarizedThroughTurnId).toBe(history[3]?.id);
    expect(compaction.metadata).toMatchObject({ pi: { tokensBefore: 50210 } });
    expect((await ledger.buildContext(history[7]?.id as string)).includedTurnIds).toEqual(
      history
        .slice(4)
        .filter((turn) => turn.turnType === 'normal')
        .map((turn) => turn.id),
    );

    const tree = await ledger.tree(sessionId);
    expect(tree.forks).toHaveLength(1);
    const fork = tree.forks[0]?.session;
    expect(fork?.forkedFromTurnId).toBe(history[0]?.id);
    const forkHistory = await historyOf(ledger, fork?.id as string);
    expect(forkHistory.map(describeTurn)).toEqual([
      'user: list the failing lint rules in the web package',
      'user: Tried fixing lint by hand; switched to eslint --fix on a fresh branch.',
      'user: run eslint --fix and show the diff',
    ]);
    expect(forkHistory[1]?.metadata).toMatchObject({ pi: { branchSummaryFrom: 'e000000a' } });
    expect(await ledger.doctor()).toEqual([]);
    const again = await importTranscripts({ ledger, paths: [FILE] });
    expect(again).toMatchObject({ turns: 0, compactions: 0, forks: 0 });
  });

  it('a pi fork file (parentSession) is a fork of that session; the entries it repeats are not imported twice', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const parent = path.join(folder, 'parent.jsonl');
    fs.copyFileSync(FILE, parent);
    const repeated = fs
      .readFileSync(FILE, 'utf8')
      .split('\n')
      .filter((line) => /"id":"e000000[2-6]"/.test(line) && line.includes('"type":"message"'));
    const fork = path.join(folder, 'fork.jsonl');
    fs.writeFileSync(
      fork,
      [
        JSON.stringify({
          type: 'session',
          version: 3,
          id: 'f0f0f0f0-1111-4222-8333-444444444444',
          timestamp: '2026-05-03T10:00:00.000Z',
          cwd: '/w/web',
          parentSession: 'parent.jsonl',
        }),
        ...repeated,
        JSON.stringify({
          type: 'message',
          id: 'f0000001',
          parentId: 'e0000006',
          timestamp: '2026-05-03T10:00:05.000Z',
          message: { role: 'user', content: 'on this branch, fix no-unused-vars first' },
        }),
      ].join('\n'),
    );
    const result = await importTranscripts({ ledger, paths: [parent, fork] });
    expect(result.problems.map((problem) => problem.line)).toEqual([12]);
    const [main, forked] = result.sources;
    const forkSession = await ledger.getSession(forked?.sessionId as string);
    expect(forkSession.parentSessionId).toBe(main?.sessionId);
    const mainHistory = await historyOf(ledger, main?.sessionId as string);
    expect(forkSession.forkedFromTurnId).toBe(mainHistory[3]?.id);
    const forkHistory = await historyOf(ledger, forkSession.id);
    expect(forkHistory.filter((turn) => turn.sessionId === forkSession.id).map(describeTurn)).toEqual([
      'user: on this branch, fix no-unused-vars first',
    ]);
  });
});
