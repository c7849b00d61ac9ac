// Messages-API JSON (an Anthropic request body, an OpenAI chat array), nexus-eval/v1 through the
// agents ledger's importer, format detection, and the errors a person gets for anything else.

import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const MESSAGES = path.join(FIXTURES, 'messages');

let temp: TempLedger;
afterEach(() => temp?.cleanup());

describe('Messages JSON and nexus-eval import', () => {
  it('reads an Anthropic body and an OpenAI array, tool calls included, each once', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const result = await importTranscripts({ ledger, paths: [MESSAGES] });
    expect(result.problems).toEqual([]);
    const [anthropic, openai] = result.sources;
    expect((await historyOf(ledger, anthropic?.sessionId as string)).map(describeTurn)).toEqual([
      'user: Which version did we tag for the mobile release?',
      'assistant: Let me check the tags. | tool_use toolu_m1 git_tags {"pattern":"mobile-*"}',
      'user: tool_result toolu_m1 mobile-4.12.0\nmobile-4.12.1',
      'assistant: The newest tag is mobile-4.12.1.',
    ]);
    expect((await historyOf(ledger, openai?.sessionId as string)).map(describeTurn)).toEqual([
      'user: How long does the nightly build take?',
      'assistant: tool_use call_o1 build_stats {"job":"nightly"}',
      'user: tool_result call_o1 median 41 min, p95 58 min',
      'assistant: The nightly build takes 41 minutes at the median, 58 at p95.',
    ]);
    expect((await importTranscripts({ ledger, paths: [MESSAGES] })).turns).toBe(0);
  });

  it('reads stdin, and a grown messages list appends to the same session', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const body = JSON.parse(fs.readFileSync(path.join(MESSAGES, 'anthropic-request.json'), 'utf8'));
    const short = { ...body, messages: body.messages.slice(0, 2) };
    const first = await importTranscripts({ ledger, paths: ['-'], stdin: Readable.from([JSON.stringify(short)]) });
    const second = await importTranscripts({ ledger, paths: ['-'], stdin: Readable.from([JSON.stringify(body)]) });
    expect(first.turns).toBe(2);
    expect(second).toMatchObject({ turns: 2, known: 2 });
    expect(second.sources[0]?.sessionId).toBe(first.sources[0]?.sessionId);
  });

  it('skips a message the ledger refuses (over the context window), keeps the rest, and does not report it twice', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const messages = [
      { role: 'user', content: 'short question about the cache' },
      { role: 'assistant', content: 'word '.repeat(2000) },
      { role: 'user', content: 'and the next question' },
    ];
    const settings = { contextWindow: 400, reserveTokens: 50, keepRecentTokens: 100 };
    const first = await importTranscripts({ ledger, paths: ['-'], stdin: Readable.from([JSON.stringify(messages)]), settings });
    expect(first.turns).toBe(2);
    expect(first.problems).toEqual([
      { path: '-', line: 2, message: expect.stringMatching(/^skipped: A turn of ~\d+ tokens is over the limit of 400/) },
    ]);
    const history = await historyOf(ledger, first.sources[0]?.sessionId as string);
    expect(history.map(describeTurn)).toEqual(['user: short question about the cache', 'user: and the next question']);
    const again = await importTranscripts({ ledger, paths: ['-'], stdin: Readable.from([JSON.stringify(messages)]), settings });
    expect(again).toMatchObject({ turns: 0, known: 3, problems: [] });
  });

  it('replays nexus-eval/v1 with compaction once per conversation id', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const file = path.join(temp.folder, 'conversation.json');
    const messages = Array.from({ length: 12 }, (_, index) => ({
      id: `m${index}`,
      role: index % 2 ? 'assistant' : 'user',
      content: `Message ${index} about the staging database migration step ${index} and its rollback plan. `.repeat(3),
      timestamp: null,
    }));
    fs.writeFileSync(file, JSON.stringify({ format: 'nexus-eval/v1', id: 'staging', messages, questions: [] }));
    const settings = { contextWindow: 400, reserveTokens: 50, keepRecentTokens: 100 };
    const first = await importTranscripts({ ledger, paths: [file], settings });
    expect(first).toMatchObject({ turns: 12, sources: [{ format: 'nexus-eval', created: true }] });
    expect(first.compactions).toBeGreaterThan(0);
    const again = await importTranscripts({ ledger, paths: [file], settings });
    expect(again).toMatchObject({ turns: 0, known: 12, sources: [{ sessionId: first.sources[0]?.sessionId, created: false }] });
  });

  it('says what it expected, and where the formats are documented, for a file it cannot read', async () => {
    temp = openTempLedger();
    const { ledger, folder } = temp;
    const notJson = path.join(folder, 'notes.json');
    fs.writeFileSync(notJson, 'hello {');
    await expect(importTranscripts({ ledger, paths: [notJson] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/neither Claude Code, Codex or pi JSONL nor a JSON conversation.*docs\/import-export\.md/),
    });
    const badEval = path.join(folder, 'bad-eval.json');
    fs.writeFileSync(badEval, JSON.stringify({ format: 'nexus-eval/v1', id: 'x', messages: 'none' }));
    await expect(importTranscripts({ ledger, paths: [badEval] })).rejects.toMatchObject({
      message: expect.stringMatching(/"messages" must be an array.*docs\/import-export\.md/),
    });
    await expect(importTranscripts({ ledger, paths: [path.join(folder, 'missing.jsonl')] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('ENOENT'),
    });
    await expect(importTranscripts({ ledger, paths: [notJson], format: 'gemini' as never })).rejects.toMatchObject({
      field: 'format',
    });
    // In a folder, an unreadable file is reported and the others are imported.
    fs.copyFileSync(path.join(MESSAGES, 'openai-chat.json'), path.join(folder, 'chat.json'));
    const result = await importTranscripts({ ledger, paths: [folder] });
    expect(result.turns).toBe(4);
    expect(result.problems.map((problem) => path.basename(problem.path))).toEqual(['bad-eval.json', 'notes.json']);
  });
});
