// A transcript read while its tool is still writing it: the last line may be cut anywhere. An import
// at any moment, then one of the finished file, leaves exactly what one import of the finished file
// leaves, and never reports the cut line as malformed; a malformed line is reported once, then known.

import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { importTranscripts } from '../src/index.ts';
import { readLines } from '../src/read-lines.ts';
import { countStored, describeTurn, FIXTURES, historyOf, openTempLedger, type TempLedger } from './helpers.ts';

const SESSION_FILE = path.join(FIXTURES, 'claude-code', '-w-app', '5e551011-aaaa-4bbb-8ccc-000000000001.jsonl');
const TRANSCRIPTS = {
  'claude-code': SESSION_FILE,
  codex: path.join(FIXTURES, 'codex', 'rollout-2026-05-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl'),
  pi: path.join(FIXTURES, 'pi', '2026-05-03T08-00-00-000Z_7b1f3c2e-0a4d-4e8b-9c1d-2f3a4b5c6d7e.jsonl'),
};

/** A fixture without its malformed line (each has one, cut by a crash): a well-formed transcript. */
function wellFormed(file: string): string {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && isJson(line));
  return `${lines.join('\n')}\n`;
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

const temps: TempLedger[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.cleanup();
});

/**
 * Every session's line as text. A reply cut between its streamed lines is imported in two parts (the
 * first part was a whole turn when it was read, and turns are never rewritten): consecutive parts of
 * one reply read as one here, since they say the same in the same order.
 */
async function describeLedger(temp: TempLedger): Promise<string[]> {
  const sessions = await temp.ledger.listSessions({ limit: 100, offset: 0 });
  const described: string[] = [];
  for (const session of [...sessions].sort((a, b) => (a.label ?? '').localeCompare(b.label ?? ''))) {
    described.push(`${session.label} ${session.forkedFromTurnId ? 'fork' : 'root'}`);
    let previous = '';
    for (const turn of await historyOf(temp.ledger, session.id)) {
      const text = describeTurn(turn);
      if (previous.startsWith('assistant: ') && text.startsWith('assistant: ')) {
        previous = `${previous} | ${text.slice('assistant: '.length)}`;
        described[described.length - 1] = `  ${previous}`;
      } else {
        previous = text;
        described.push(`  ${text}`);
      }
    }
  }
  return described;
}

describe('a transcript still being written', () => {
  it('reads lines with whether a newline ended them (only the last can lack one)', async () => {
    const lines = [];
    for await (const line of readLines(Readable.from(['{"a":1}\r\n{"b"', ':2}\n{"c":']))) lines.push(line);
    expect(lines).toEqual([
      { number: 1, text: '{"a":1}', terminated: true, offset: 0, end: 9 },
      { number: 2, text: '{"b":2}', terminated: true, offset: 9, end: 17 },
      { number: 3, text: '{"c":', terminated: false, offset: 17, end: 22 },
    ]);
  });

  for (const [format, source] of Object.entries(TRANSCRIPTS)) {
    it(`${format}: cut at any byte, imported, then finished and imported again: the same as one import of the finished file`, async () => {
      const text = wellFormed(source);
      const once = openTempLedger();
      temps.push(once);
      const whole = path.join(once.folder, 'session.jsonl');
      fs.writeFileSync(whole, text);
      const single = await importTranscripts({ ledger: once.ledger, paths: [whole] });
      expect(single.problems).toEqual([]);
      const expected = await describeLedger(once);
      expect(expected.length).toBeGreaterThan(3);

      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: text.length - 1 }), async (cut) => {
          const temp = openTempLedger();
          temps.push(temp);
          const file = path.join(temp.folder, 'session.jsonl');
          fs.writeFileSync(file, text.slice(0, cut));
          const early = await importTranscripts({ ledger: temp.ledger, paths: [file] });
          expect(early.problems).toEqual([]);
          fs.writeFileSync(file, text);
          const later = await importTranscripts({ ledger: temp.ledger, paths: [file] });
          expect(later.problems).toEqual([]);
          expect(later.unfinished).toBe(0);
          expect(await describeLedger(temp)).toEqual(expected);
          expect((await countStored(temp.ledger)).sessions).toBe((await countStored(once.ledger)).sessions);
        }),
        { numRuns: 20, seed: 20261126 },
      );
    });
  }

  it('reports a malformed line once; a later run reading it again counts it as known and reports nothing', async () => {
    const temp = openTempLedger();
    temps.push(temp);
    const first = await importTranscripts({ ledger: temp.ledger, paths: [SESSION_FILE] });
    expect(first.problems.map((problem) => problem.line)).toEqual([13]);
    expect(first.knownProblems).toBe(0);
    // The same transcript under another path has no position yet: it is read whole again.
    const copy = path.join(temp.folder, 'copy.jsonl');
    fs.copyFileSync(SESSION_FILE, copy);
    const second = await importTranscripts({ ledger: temp.ledger, paths: [copy] });
    expect(second.resumed).toBe(0);
    expect(second.problems).toEqual([]);
    expect(second.knownProblems).toBe(1);
    expect(second.sources.map((source) => source.added)).toEqual([0]);
    // Where it stopped is recorded: the next run of either path reads nothing but the first line.
    const third = await importTranscripts({ ledger: temp.ledger, paths: [SESSION_FILE, copy] });
    expect(third.resumed).toBeGreaterThan(2 * 10);
    expect(third.known).toBe(third.lines);
    expect(third.lines).toBeLessThan(2 * 3);
    expect(third.problems).toEqual([]);
  });
});
