// pi session JSONL (~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl, version 3): a header line
// {type:"session"}, then entries with id/parentId forming a tree whose newest entry is the leaf. A
// branch (an entry following one that already has a child) becomes a fork; a `compaction` entry
// (summary, firstKeptEntryId, tokensBefore) a compaction turn; a `branch_summary` a user turn on
// its branch. Consecutive toolResult messages make one tool_result turn. A file with parentSession
// (pi's fork) is a fork of that session, and the entries it copied from it are recognised by id.
// A header `nexus export` wrote (export-pi.ts) names the session's label, which is kept as it is.

import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { ContentBlock } from '@agent-ledger/core';
import { parseJsonLine } from '../read-lines.ts';
import { answersEveryCall, callsOf } from '../tool-rounds.ts';
import {
  type SourceLine,
  sessionLabel,
  type TranscriptEntry,
  type TranscriptFormat,
  type TurnEntry,
  timeOf,
} from '../transcript-entry.ts';

type Json = Record<string, unknown>;

export const piFormat: TranscriptFormat = {
  name: 'pi',
  detect: (firstLines) => {
    const parsed = firstLines[0] === undefined ? null : parseJsonLine({ number: 1, text: firstLines[0] });
    return parsed !== null && 'value' in parsed && parsed.value.type === 'session' && typeof parsed.value.id === 'string';
  },
  read: readPi,
};

type Group = TurnEntry & { blocksByLine: ContentBlock[][] };

/** What reading one file remembers from line to line. */
interface Reading {
  path: string;
  started: boolean;
  /** The tool_result turn being merged from consecutive toolResult messages. */
  results: Group | null;
  /** The calls of the newest assistant message: a results group ending the file must answer them all. */
  openCalls: string[];
  /** An assistant message with calls, not yet followed by anything. */
  calling: TranscriptEntry | null;
  /** The line the newest calls are on: where a round still being written is read again from. */
  callsLine: number;
}

async function* readPi(lines: AsyncIterable<SourceLine>, origin: { path: string }): AsyncGenerator<TranscriptEntry> {
  const reading: Reading = { path: origin.path, started: false, results: null, openCalls: [], calling: null, callsLine: 0 };
  for await (const line of lines) {
    if (line.text.trim() === '') continue;
    yield* entriesOfLine(reading, line);
  }
  yield* endOfFile(reading);
}

/** The entries one non-empty line completes, in order. */
function entriesOfLine(reading: Reading, line: SourceLine): TranscriptEntry[] {
  const parsed = parseJsonLine(line);
  if ('error' in parsed) return [{ kind: 'problem', line: line.number, message: parsed.error }];
  const value = parsed.value;
  if (value.type === 'session') return header(reading, value);
  if (!reading.started)
    return [{ kind: 'problem', line: line.number, message: 'comes before the {"type":"session"} header; skipped' }];
  if (typeof value.id !== 'string')
    return [{ kind: 'problem', line: line.number, message: 'is an entry without an "id"; skipped' }];
  const base: Base = {
    lineIds: [value.id],
    parentLineId: typeof value.parentId === 'string' ? value.parentId : null,
    line: line.number,
    ...(timeOf(value.timestamp) === undefined ? {} : { timestamp: timeOf(value.timestamp) as number }),
    ...nexusBlockOf(value),
  };
  const message = (value.message ?? {}) as Json;
  if (value.type === 'message' && message.role === 'toolResult') return toolResult(reading, message, base);
  return treeEntry(reading, entryOf(value, message, base));
}

/** The first header names the source session (a fork of the session a pi fork names); later ones are ignored. */
function header(reading: Reading, value: Json): TranscriptEntry[] {
  if (reading.started) return [];
  reading.started = true;
  const time = timeOf(value.timestamp);
  const parentId = typeof value.parentSession === 'string' ? headerIdOf(value.parentSession, reading.path) : undefined;
  return [
    {
      kind: 'session',
      key: `pi:${String(value.id)}`,
      label:
        exportedLabel(value) ??
        sessionLabel(
          'pi',
          typeof value.cwd === 'string' ? value.cwd : undefined,
          time,
          parentId ? `fork of ${parentId}` : undefined,
        ),
      ...(parentId
        ? { forkOf: { key: `pi:${parentId}`, copiesLines: true, ...(time === undefined ? {} : { atTime: time }) } }
        : {}),
    },
  ];
}

/** A toolResult message: joins the results turn it follows, else starts one (after what came before). */
function toolResult(reading: Reading, message: Json, base: Base): TranscriptEntry[] {
  const block: ContentBlock = {
    type: 'tool_result',
    tool_use_id: String(message.toolCallId ?? ''),
    content: textOf(message.content),
    ...(message.isError === true ? { is_error: true } : {}),
  };
  const { results } = reading;
  if (results && results.lineIds.at(-1) === base.parentLineId) {
    results.lineIds.push(...base.lineIds);
    results.blocksByLine.push([block]);
    return [];
  }
  const before = settle(reading);
  reading.results = { kind: 'turn', role: 'user', content: [], blocksByLine: [[block]], ...base };
  return before;
}

/** Any other entry of the tree; an assistant message with calls is held until the next line. */
function treeEntry(reading: Reading, entry: TranscriptEntry): TranscriptEntry[] {
  const before = settle(reading);
  if (entry.kind === 'turn' && entry.role === 'assistant') {
    reading.openCalls = callsOf(entry.content);
    reading.callsLine = entry.line;
    // Held until the next line: a call that ends the file is a tool round still being written.
    if (reading.openCalls.length > 0) {
      reading.calling = entry;
      return before;
    }
  }
  return [...before, entry];
}

/** What waits when another line comes: the results turn, then the held calls. */
function settle(reading: Reading): TranscriptEntry[] {
  const settled = [...flush(reading), ...(reading.calling ? [reading.calling] : [])];
  reading.calling = null;
  return settled;
}

function flush(reading: Reading): TranscriptEntry[] {
  const entry = reading.results;
  reading.results = null;
  return entry ? [{ ...entry, content: entry.blocksByLine.flat() }] : [];
}

/** What the file's end leaves: a round still being written is left for the next import. */
function endOfFile(reading: Reading): TranscriptEntry[] {
  const { calling, results } = reading;
  // A tool round that ends the file part-way (calls with no results, or not all of them) is still
  // being written (tool-rounds.ts): left for the next import.
  if (calling || (results && !answersEveryCall(results.blocksByLine.flat(), reading.openCalls))) {
    // From the calls' line: the next import reads the round whole, calls and results.
    return [{ kind: 'unfinished', line: calling && 'line' in calling ? calling.line : reading.callsLine }];
  }
  return flush(reading);
}

/**
 * The label a header written by `nexus export` carries in its `nexus` block (`nexusLabel` in files
 * exported before the block): the name the session had in the ledger, kept as it was. pi ignores
 * the field and never writes it, so a header pi wrote is labelled from its tool, folder and date.
 */
function exportedLabel(header: Json): string | undefined {
  const nexus = header.nexus;
  const label = typeof nexus === 'object' && nexus !== null && !Array.isArray(nexus) ? (nexus as Json).label : header.nexusLabel;
  return typeof label === 'string' && label.trim() !== '' ? label : undefined;
}

/** The label `nexus export` names on the first entry of a fork's branch (export-pi.ts). */
function nexusBlockOf(entry: Json): { forkLabel?: string } {
  const nexus = entry.nexus;
  const label = typeof nexus === 'object' && nexus !== null ? (nexus as Json).label : undefined;
  return typeof label === 'string' && label.trim() !== '' ? { forkLabel: label } : {};
}

type Base = { lineIds: string[]; parentLineId: string | null; line: number; timestamp?: number; forkLabel?: string };

function entryOf(value: Json, message: Json, base: Base): TranscriptEntry {
  const { forkLabel: _, ...lineBase } = base;
  const skip: TranscriptEntry = { kind: 'skip', ...lineBase };
  const turn = (role: 'user' | 'assistant', content: ContentBlock[], extra: Partial<TurnEntry> = {}): TranscriptEntry =>
    content.length > 0 ? { kind: 'turn', role, content, ...base, ...extra } : skip;
  switch (value.type) {
    case 'message':
      if (message.role === 'user') return turn('user', blocksOf(message.content));
      if (message.role === 'assistant') {
        return turn('assistant', blocksOf(message.content), typeof message.model === 'string' ? { model: message.model } : {});
      }
      if (message.role === 'bashExecution') {
        const text = `$ ${String(message.command ?? '')}\n${String(message.output ?? '')}`;
        return turn('user', [{ type: 'text', text }], {
          metadata: { pi: { role: 'bashExecution', exitCode: message.exitCode ?? null } },
        });
      }
      if (message.role === 'custom')
        return turn('user', textBlocks(message.content), {
          metadata: { pi: { role: 'custom', customType: message.customType } },
        });
      return skip;
    case 'custom_message':
      return turn('user', textBlocks(value.content), {
        metadata: { pi: { role: 'custom_message', customType: value.customType } },
      });
    case 'branch_summary':
      return turn('user', textBlocks(value.summary), { metadata: { pi: { branchSummaryFrom: value.fromId ?? null } } });
    case 'compaction':
      return {
        kind: 'compaction',
        ...base,
        summary: typeof value.summary === 'string' ? value.summary : '',
        ...(typeof value.firstKeptEntryId === 'string' ? { firstKeptLineId: value.firstKeptEntryId } : {}),
        trigger: 'threshold',
        metadata: { pi: { tokensBefore: value.tokensBefore ?? null, ...(value.details ? { details: value.details } : {}) } },
      };
    default:
      // model_change, thinking_level_change, label, session_info, custom: settings and extension state.
      return skip;
  }
}

/** pi content (string | text | image | thinking | toolCall blocks) → ledger blocks; thinking left out. */
function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((block): ContentBlock[] => {
    if (block?.type === 'text' && typeof block.text === 'string' && block.text) return [{ type: 'text', text: block.text }];
    if (block?.type === 'image')
      return [{ type: 'text', text: `[image${typeof block.mimeType === 'string' ? ` ${block.mimeType}` : ''} not imported]` }];
    if (block?.type === 'toolCall' && typeof block.id === 'string' && typeof block.name === 'string') {
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.arguments ?? {} }];
    }
    return [];
  });
}

function textBlocks(content: unknown): ContentBlock[] {
  return blocksOf(content).filter((block) => block.type === 'text');
}

function textOf(content: unknown): string {
  return textBlocks(content)
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n');
}

/** The id in the header of the session a pi fork names (its file path); undefined if unreadable. */
function headerIdOf(parentPath: string, ownPath: string): string | undefined {
  try {
    // The header is the first line: read a little of the file, never all of it.
    const descriptor = openSync(path.resolve(path.dirname(ownPath), parentPath), 'r');
    const buffer = Buffer.alloc(65_536);
    const size = readSync(descriptor, buffer, 0, buffer.length, 0);
    closeSync(descriptor);
    const first = buffer.toString('utf8', 0, size).split('\n', 1)[0] ?? '';
    const header = JSON.parse(first) as Json;
    return typeof header.id === 'string' ? header.id : undefined;
  } catch {
    return undefined;
  }
}
