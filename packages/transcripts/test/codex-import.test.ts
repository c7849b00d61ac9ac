// Codex rollouts: response_item messages and tool calls (never the event_msg copies), the harness's
// environment context left out, `compacted` as a compaction turn, forked_from_id as a fork, a
// half-written last line reported, and a re-import that adds nothing.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { countStored, describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const FOLDER = path.join(FIXTURES, 'codex');
const MAIN = path.join(FOLDER, 'rollout-2026-05-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl');

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('Codex import', () => {
  it('reads the model history, the tool round and the compaction; a fork file becomes a fork', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const result = await importTranscripts({ ledger, paths: [FOLDER] });
    expect(result.problems).toEqual([{ path: MAIN, line: 16, message: expect.stringContaining('is not valid JSON') }]);
    const [main, fork] = result.sources;
    expect(main?.key).toBe('codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee');
    const history = await historyOf(ledger, main?.sessionId as string);
    expect(history.map(describeTurn)).toEqual([
      'user: run the integration tests for the orders service',
      'assistant: tool_use call_1 exec_command {"cmd":"pytest -q tests/orders"}',
      'user: tool_result call_1 3 failed, 57 passed: test_order_total, test_order_tax, test_order_refund',
      'assistant: Three order tests fail; all three read TAX_RATE from the stale fixture orders_v2.json.',
      'compaction: Orders tests: 3 fail because fixture orders_v2.json has a stale TAX_RATE.',
      'user: regenerate the fixture with TAX_RATE 0.0825',
      'assistant: Regenerated orders_v2.json with TAX_RATE 0.0825; the three tests pass.',
    ]);
    const compaction = history[4];
    if (compaction?.turnType !== 'compaction') throw new Error('expected a compaction');
    expect(compaction.summarizedThroughTurnId).toBe(history[3]?.id);
    expect(compaction.firstKeptTurnId).toBeNull();
    expect(compaction.metadata).toMatchObject({ codex: { replacementHistoryItems: 2 } });
    expect(history[1]).toMatchObject({ model: 'gpt-5.5' });

    const forkSession = await ledger.getSession(fork?.sessionId as string);
    expect(forkSession.parentSessionId).toBe(main?.sessionId);
    // Forked at 11:00, after every turn of the main rollout.
    expect(forkSession.forkedFromTurnId).toBe(history[6]?.id);
    expect((await historyOf(ledger, forkSession.id)).slice(7).map(describeTurn)).toEqual([
      'user: what if we compute the tax at checkout instead of storing it?',
      'assistant: Then orders_v2.json drops TAX_RATE and checkout calls tax_for(region).',
    ]);
    expect(await ledger.doctor()).toEqual([]);

    const stored = await countStored(ledger);
    expect(stored.turns).toBeGreaterThan(0);
    const again = await importTranscripts({ ledger, paths: [FOLDER] });
    expect(again).toMatchObject({ turns: 0, compactions: 0, forks: 0 });
    expect(await countStored(ledger)).toEqual(stored);
  });

  it('a rollout that grew (a resumed session) appends its new lines after the old ones', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const lines = fs.readFileSync(MAIN, 'utf8').split('\n').filter(Boolean).slice(0, 15);
    const file = path.join(folder, 'rollout.jsonl');
    fs.writeFileSync(file, `${lines.slice(0, 9).join('\n')}\n`);
    const first = await importTranscripts({ ledger, paths: [file] });
    expect(first.turns).toBe(4);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const second = await importTranscripts({ ledger, paths: [file] });
    expect(second).toMatchObject({ turns: 2, compactions: 1 });
    expect(second.sources[0]?.sessionId).toBe(first.sources[0]?.sessionId);
    expect((await historyOf(ledger, first.sources[0]?.sessionId as string)).map((turn) => turn.turnType)).toEqual([
      'normal',
      'normal',
      'normal',
      'normal',
      'compaction',
      'normal',
      'normal',
    ]);
  });

  it('a remote compaction (empty message, encrypted content) is recorded with a placeholder and marked opaque', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const lines = fs.readFileSync(MAIN, 'utf8').split('\n').filter(Boolean).slice(0, 9);
    lines.push(
      JSON.stringify({
        timestamp: '2026-05-02T10:00:00.000Z',
        type: 'compacted',
        payload: { message: '', replacement_history: [{ type: 'compaction', encrypted_content: 'gAAAA-opaque' }] },
      }),
    );
    const file = path.join(folder, 'remote.jsonl');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const result = await importTranscripts({ ledger, paths: [file] });
    const compaction = (await historyOf(ledger, result.sources[0]?.sessionId as string)).at(-1);
    if (compaction?.turnType !== 'compaction') throw new Error('expected a compaction');
    expect(compaction.summary).toContain('summary is encrypted');
    expect(compaction.metadata).toMatchObject({ codex: { opaque: true, replacementHistoryItems: 1 } });
  });
});
