// Claude Code session files: streamed assistant blocks merged into one turn, a parallel tool round,
// a compact_boundary + summary as a compaction turn, a rewind as a fork, a subagent file as a fork
// of its session, a malformed line reported and skipped, idempotent re-import, a grown file.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { countStored, describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const PROJECT = path.join(FIXTURES, 'claude-code', '-w-app');
const SESSION_FILE = path.join(PROJECT, '5e551011-aaaa-4bbb-8ccc-000000000001.jsonl');

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('Claude Code import', () => {
  it('turns the session file into one session: merged replies, one tool round, a compaction, a fork for the rewind', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const result = await importTranscripts({ ledger, paths: [SESSION_FILE] });
    expect(result.sources).toHaveLength(1);
    expect(result.problems).toEqual([{ path: SESSION_FILE, line: 13, message: expect.stringContaining('is not valid JSON') }]);
    const sessionId = result.sources[0]?.sessionId as string;
    const session = await ledger.getSession(sessionId);
    expect(session.label).toBe('claude-code /w/app 2026-05-01 10:00 · Flaky checkout test');
    const history = await historyOf(ledger, sessionId);
    expect(history.map(describeTurn)).toEqual([
      'user: Why does test_checkout fail one run in ten?',
      'assistant: I will read the test and its fixture together. | tool_use toolu_01 Read {"file_path":"/w/app/tests/test_checkout.py"} | tool_use toolu_02 Read {"file_path":"/w/app/tests/conftest.py"}',
      'user: tool_result toolu_01 def test_checkout(cart): assert cart.total == 42 | tool_result toolu_02 @fixture def cart(): return Cart(seed=random.random())',
      'assistant: The cart fixture seeds from random.random(), so the total drifts: pin the seed to 1234.',
      'user: Pinned. Now the payment retry test: it times out after 30 s.',
      'assistant: The retry loop sleeps 45 s before the second attempt; lower RETRY_BACKOFF_SECONDS to 5.',
      expect.stringMatching(/^compaction: This session is being continued .*RETRY_BACKOFF_SECONDS lowered to 5\.$/s),
      'user: Did the retry change land in CI?',
      'assistant: Yes: pipeline 8812 is green with the lower backoff.',
    ]);
    const compaction = history[6];
    if (compaction?.turnType !== 'compaction') throw new Error('expected a compaction turn');
    expect(compaction.summarizedThroughTurnId).toBe(history[5]?.id);
    expect(compaction.firstKeptTurnId).toBeNull();
    expect(compaction.summarizer).toBe('claude-code');
    expect(compaction.metadata).toMatchObject({ claudeCode: { preTokens: 151000, postTokens: 9000 } });
    expect(history[1]).toMatchObject({ model: 'claude-sonnet-4-5', timestamp: Date.parse('2026-05-01T10:00:01.000Z') });
    // The context starts from the summary; the raw lines before it are kept and searchable.
    const context = await ledger.buildContext(history[8]?.id as string);
    expect(context.compactionTurnId).toBe(compaction.id);
    expect(context.includedTurnIds).toEqual([history[7]?.id, history[8]?.id]);
    expect((await ledger.search('drifts', { view: 'raw' })).hits.map((hit) => hit.turnId)).toEqual([history[3]?.id]);
    expect((await ledger.search('drifts')).hits.map((hit) => hit.turnId)).toEqual([compaction.id]);

    // The rewind (a line following c-u2 after c-a6 already had) is a fork at c-u2's turn.
    const tree = await ledger.tree(sessionId);
    expect(tree.forks).toHaveLength(1);
    const fork = tree.forks[0]?.session;
    expect(fork?.forkedFromTurnId).toBe(history[4]?.id);
    const forkHistory = await historyOf(ledger, fork?.id as string);
    expect(forkHistory.slice(5).map(describeTurn)).toEqual([
      'user: (rewound) Instead, what if we mock the clock in the retry test?',
      'assistant: Use freezegun around the retry loop; the test then takes milliseconds.',
    ]);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('imports a project folder with its subagent file as a fork of the session, once', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const first = await importTranscripts({ ledger, paths: [PROJECT] });
    expect(first.sources.map((source) => path.basename(source.path))).toEqual([
      '5e551011-aaaa-4bbb-8ccc-000000000001.jsonl',
      'agent-a1b2c3d4.jsonl',
    ]);
    const [main, agent] = first.sources;
    const agentSession = await ledger.getSession(agent?.sessionId as string);
    expect(agentSession.parentSessionId).toBe(main?.sessionId);
    // Forked at the newest turn written before the subagent started: the tool results.
    const mainHistory = await historyOf(ledger, main?.sessionId as string);
    expect(agentSession.forkedFromTurnId).toBe(mainHistory[2]?.id);
    expect((await historyOf(ledger, agentSession.id)).slice(3).map(describeTurn)).toEqual([
      'user: Search the test suite for other tests that use random seeds.',
      'assistant: Two more: test_refund and test_invoice_rounding seed from random.random().',
    ]);

    const stored = await countStored(ledger);
    expect(stored.turns).toBeGreaterThan(0);
    const again = await importTranscripts({ ledger, paths: [PROJECT] });
    expect(again).toMatchObject({ turns: 0, compactions: 0, forks: 0 });
    expect(again.known).toBe(again.lines);
    expect(again.sources.every((source) => !source.created)).toBe(true);
    expect(await countStored(ledger)).toEqual(stored);
  });

  it('appends only the new lines of a transcript that grew, to the same session, even mid-reply', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const lines = fs.readFileSync(SESSION_FILE, 'utf8').split('\n').filter(Boolean);
    const file = path.join(folder, 'grown.jsonl');
    // Cut after the first streamed block of msg_01 (line 5): the rest of that reply comes later.
    fs.writeFileSync(file, `${lines.slice(0, 5).join('\n')}\n`);
    const first = await importTranscripts({ ledger, paths: [file] });
    expect(first.turns).toBe(2);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const second = await importTranscripts({ ledger, paths: [file] });
    expect(second.sources[0]).toMatchObject({ sessionId: first.sources[0]?.sessionId, created: false });
    // The first import stopped at line 6. This one reads the title and u1 (the first line that names
    // the session, known), then jumps to line 6: the snapshot, a1 and a2 are not read again.
    expect(second.resumed).toBe(3);
    expect(second.known).toBe(1);
    const history = await historyOf(ledger, first.sources[0]?.sessionId as string);
    // The reply's later blocks, written after the first import, follow it as a turn of their own.
    expect(history.slice(1, 3).map(describeTurn)).toEqual([
      'assistant: I will read the test and its fixture together.',
      'assistant: tool_use toolu_01 Read {"file_path":"/w/app/tests/test_checkout.py"} | tool_use toolu_02 Read {"file_path":"/w/app/tests/conftest.py"}',
    ]);
    expect(history.map(describeTurn).at(-1)).toBe('assistant: Yes: pipeline 8812 is green with the lower backoff.');
    expect(await ledger.doctor()).toEqual([]);
  });

  it('a partial compaction (preservedSegment) keeps raw turns from its headUuid', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const base = { isSidechain: false, userType: 'external', cwd: '/w/app', sessionId: 'partial-1', version: '2.1.12' };
    const line = (uuid: string, parentUuid: string | null, fields: Record<string, unknown>) =>
      JSON.stringify({ parentUuid, ...base, ...fields, uuid, timestamp: '2026-05-01T10:00:00.000Z' });
    const text = (role: 'user' | 'assistant', value: string) =>
      role === 'user'
        ? { type: 'user', message: { role, content: value } }
        : {
            type: 'assistant',
            message: { id: `msg_${value.length}_${value.charCodeAt(0)}`, role, content: [{ type: 'text', text: value }] },
          };
    const file = path.join(folder, 'partial.jsonl');
    fs.writeFileSync(
      file,
      [
        line('p1', null, text('user', 'first question about the cache size')),
        line('p2', 'p1', text('assistant', 'the cache holds 512 MB')),
        line('p3', 'p2', text('user', 'second question about eviction')),
        line('p4', 'p3', text('assistant', 'eviction is LRU')),
        line('pb', null, {
          type: 'system',
          subtype: 'compact_boundary',
          logicalParentUuid: 'p4',
          compactMetadata: {
            trigger: 'auto',
            preTokens: 9000,
            preservedSegment: { headUuid: 'p3', anchorUuid: 'pb', tailUuid: 'p4' },
          },
        }),
        line('ps', 'pb', {
          type: 'user',
          isCompactSummary: true,
          message: { role: 'user', content: 'Summary: cache is 512 MB.' },
        }),
        line('p5', 'ps', text('user', 'third question')),
      ].join('\n'),
    );
    const result = await importTranscripts({ ledger, paths: [file] });
    const history = await historyOf(ledger, result.sources[0]?.sessionId as string);
    const compaction = history[4];
    if (compaction?.turnType !== 'compaction') throw new Error('expected a compaction');
    expect(compaction.trigger).toBe('threshold');
    expect(compaction.summarizedThroughTurnId).toBe(history[1]?.id);
    expect(compaction.firstKeptTurnId).toBe(history[2]?.id);
    expect((await ledger.buildContext(history[5]?.id as string)).includedTurnIds).toEqual([
      history[2]?.id,
      history[3]?.id,
      history[5]?.id,
    ]);
    expect(await ledger.doctor()).toEqual([]);
  });
});
