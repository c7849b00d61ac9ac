// What every transcript format's reader promises the writer (write-entries.ts), whatever the format:
// its entries come in file order, a tool result never comes before its call, the ids the writer
// keys lines by are unique, a file cut at a line boundary (a transcript its tool is still writing)
// reads as the start of the whole file's read, an empty file reads as nothing, and a malformed line
// is reported as a problem, never thrown.
//
// A problem is reported as soon as its line is read, while a turn merged from several lines (a
// streamed reply, a run of tool results) is yielded only when it ends: a problem may come before
// the turn of the lines above it. The writer handles problems on their own, so the order promised
// is that of the entries holding lines, and that of the problems, each on its own.

import fs from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from '../src/read-lines.ts';
import type { ProblemEntry, TranscriptEntry, TranscriptFormat, UnfinishedEntry } from '../src/transcript-entry.ts';

export interface ReaderUnderTest {
  /** The format's reader (`TranscriptFormat.read`). */
  read: TranscriptFormat['read'];
  /** A transcript of the format, ending with a newline, that holds at least one tool round. */
  fixture: string;
}

export function transcriptReaderContract(name: string, reader: ReaderUnderTest): void {
  const subject = subjectOf(reader);
  describe(`${name} reader contract`, () => {
    it('yields the session before any line, then the entries holding lines and the problems each in file order', () =>
      entriesInFileOrder(subject));
    it('yields every tool result after the tool call with its id', () => resultsAfterTheirCalls(subject));
    it('names one session, and no line or tool call id twice', () => idsUnique(subject));
    it('reads a file cut at any line boundary as a prefix of the whole read, but what its unfinished tail holds back', () =>
      cutFilesReadAsPrefixes(subject));
    it('reads an empty file, or one of blank lines, as nothing', () => emptyFilesReadAsNothing(subject));
    it('reports a malformed line as a problem at its line, and reads on', () => malformedLinesReported(subject));
  });
}

/** The fixture, and its reader as the importer runs it. */
interface Subject {
  text: string;
  lines: string[];
  /** The entries of a file holding `content`. */
  readText(content: string): Promise<TranscriptEntry[]>;
}

function subjectOf({ read, fixture }: ReaderUnderTest): Subject {
  const text = fs.readFileSync(fixture, 'utf8');
  return {
    text,
    lines: (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n'),
    readText: async (content) => {
      const entries: TranscriptEntry[] = [];
      for await (const entry of read(readLines(Readable.from([content])), { path: fixture })) entries.push(entry);
      return entries;
    },
  };
}

type LineEntry = Extract<TranscriptEntry, { lineIds: string[] }>;

function holdsLines(entry: TranscriptEntry): entry is LineEntry {
  return 'lineIds' in entry;
}

function isProblem(entry: TranscriptEntry): entry is ProblemEntry {
  return entry.kind === 'problem';
}

function isUnfinished(entry: TranscriptEntry): entry is UnfinishedEntry {
  return entry.kind === 'unfinished';
}

/** Lines as a file's text, each ended by its newline. */
function fileOf(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}

async function entriesInFileOrder({ text, lines, readText }: Subject): Promise<void> {
  const entries = await readText(text);
  const sessionAt = entries.findIndex((entry) => entry.kind === 'session');
  expect(sessionAt).toBeGreaterThanOrEqual(0);
  expect(entries.findIndex(holdsLines)).toBeGreaterThan(sessionAt);
  const starts = entries.filter(holdsLines).map((entry) => entry.line);
  expect(starts.length).toBeGreaterThan(2);
  expect(starts).toEqual(increasing(starts));
  const problemLines = entries.filter(isProblem).map((entry) => entry.line);
  expect(problemLines).toEqual(increasing(problemLines));
  // Every line named is one of the file's.
  for (const line of [...starts, ...problemLines]) expect(line >= 1 && line <= lines.length, `line ${line}`).toBe(true);
}

async function resultsAfterTheirCalls({ text, readText }: Subject): Promise<void> {
  const called = new Set<string>();
  let results = 0;
  for (const entry of await readText(text)) {
    if (entry.kind !== 'turn') continue;
    for (const block of entry.content) {
      if (block.type !== 'tool_result') continue;
      results += 1;
      expect([...called], `the call of the result at line ${entry.line}`).toContain(block.tool_use_id);
    }
    // Calls after the results: a result in the very turn of its call does not follow it.
    for (const block of entry.content) if (block.type === 'tool_use') called.add(block.id);
  }
  expect(results).toBeGreaterThan(0);
}

async function idsUnique({ text, readText }: Subject): Promise<void> {
  const entries = await readText(text);
  expect(entries.filter((entry) => entry.kind === 'session')).toHaveLength(1);
  const lineIds = entries.filter(holdsLines).flatMap((entry) => entry.lineIds);
  expect(lineIds.length).toBeGreaterThan(2);
  expect(duplicates(lineIds)).toEqual([]);
  const callIds = entries.flatMap((entry) =>
    entry.kind === 'turn' ? entry.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : [],
  );
  expect(callIds.length).toBeGreaterThan(0);
  expect(duplicates(callIds)).toEqual([]);
}

async function cutFilesReadAsPrefixes({ text, lines, readText }: Subject): Promise<void> {
  const whole = await readText(text);
  for (let cut = 0; cut <= lines.length; cut += 1) {
    const where = `cut after line ${cut}`;
    const entries = await readText(fileOf(lines.slice(0, cut)));
    // What is left for the next import is said last, and names a line of the cut file.
    const tailAt = entries.findIndex(isUnfinished);
    const body = tailAt < 0 ? entries : entries.slice(0, tailAt);
    const tail = tailAt < 0 ? [] : entries.slice(tailAt);
    expect(
      tail.filter((entry) => !isUnfinished(entry)),
      where,
    ).toEqual([]);
    const heldLines = tail.filter(isUnfinished).map((entry) => entry.line);
    for (const line of heldLines) expect(line >= 1 && line <= cut, `${where}: unfinished at ${line}`).toBe(true);
    // A malformed line is reported however the file goes on after it.
    expect(body.filter(isProblem), where).toEqual(whole.filter((entry) => isProblem(entry) && entry.line <= cut));
    expectPrefixOfWhole(
      body.filter((entry) => !isProblem(entry)),
      whole.filter((entry) => !isProblem(entry) && !isUnfinished(entry)),
      { cut, heldFrom: heldLines[0] ?? Number.POSITIVE_INFINITY, where },
    );
  }
}

/**
 * The session and entries holding lines of a cut file's read (`read`) are the whole read's, but the
 * last, which may hold only the lines of its entry the cut file has (a reply cut between its
 * streamed blocks); what it leaves out of the lines it had starts where its unfinished tail does.
 */
function expectPrefixOfWhole(
  read: readonly TranscriptEntry[],
  whole: readonly TranscriptEntry[],
  { cut, heldFrom, where }: { cut: number; heldFrom: number; where: string },
): void {
  expect(read.length, where).toBeLessThanOrEqual(whole.length);
  for (const [index, entry] of read.entries()) {
    if (index < read.length - 1) expect(entry, `${where}: entry ${index}`).toEqual(whole[index]);
    else expectPartOf(entry, whole[index], `${where}: last entry`);
  }
  const missing = whole.slice(read.length).filter(holdsLines);
  expect(
    missing.filter((entry) => entry.line <= cut && entry.line < heldFrom),
    `${where}: entries lost`,
  ).toEqual([]);
}

/**
 * `part` is `full`, or the part of it a cut file holds: the same start, the first of its lines, the
 * first of its blocks (a skip while none of them is a block yet).
 */
function expectPartOf(part: TranscriptEntry, full: TranscriptEntry | undefined, where: string): void {
  expect(full, `${where}: not in the whole read`).toBeDefined();
  if (!full || !holdsLines(part) || !holdsLines(full) || part.lineIds.length >= full.lineIds.length) {
    expect(part, where).toEqual(full);
    return;
  }
  expect(part.line, where).toBe(full.line);
  expect(full.lineIds.slice(0, part.lineIds.length), where).toEqual(part.lineIds);
  expect(part.kind === full.kind || (part.kind === 'skip' && full.kind === 'turn'), `${where}: ${part.kind}`).toBe(true);
  if (part.kind === 'turn' && full.kind === 'turn') {
    expect(part.role, where).toBe(full.role);
    expect(full.content.slice(0, part.content.length), where).toEqual(part.content);
  }
}

async function emptyFilesReadAsNothing({ readText }: Subject): Promise<void> {
  expect(await readText('')).toEqual([]);
  expect(await readText('\n\n  \n\t\n')).toEqual([]);
}

async function malformedLinesReported({ text, lines, readText }: Subject): Promise<void> {
  const whole = await readText(text);
  const middle = Math.floor(lines.length / 2);
  const malformed: Array<[at: number, line: string]> = [
    [0, '{not json'],
    [middle, '[1, 2]'],
    [middle, '"a bare string"'],
    [lines.length, '{"cut by a crash": '],
  ];
  /** The entries but problems, kind by kind. */
  const kinds = (entries: TranscriptEntry[]) => entries.filter((entry) => !isProblem(entry)).map((entry) => entry.kind);
  for (const [at, line] of malformed) {
    // A rejected read (a reader that throws) fails the case here.
    const entries = await readText(fileOf([...lines.slice(0, at), line, ...lines.slice(at)]));
    const problems = entries.filter(isProblem);
    expect(problems, line).toContainEqual({ kind: 'problem', line: at + 1, message: expect.stringMatching(/\S/) });
    expect(problems, line).toHaveLength(whole.filter(isProblem).length + 1);
    // Skipped, and nothing else changed: the same entries, kind by kind.
    expect(kinds(entries), line).toEqual(kinds(whole));
  }
}

/** The numbers sorted, each once: equal to the given ones only when they strictly increase. */
function increasing(numbers: readonly number[]): number[] {
  return [...new Set(numbers)].sort((a, b) => a - b);
}

function duplicates(ids: readonly string[]): string[] {
  return ids.filter((id, index) => ids.indexOf(id) !== index);
}
