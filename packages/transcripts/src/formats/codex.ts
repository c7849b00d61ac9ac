// Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-…-<uuid>.jsonl). Every line is
// {timestamp, type, payload}; the conversation is the `response_item` lines (the `event_msg`
// user_message / agent_message lines duplicate them and are not read). Consecutive assistant-side
// items (message, function_call, custom_tool_call, local_shell_call) make one assistant turn, the
// outputs after them one tool_result turn; `compacted` is a compaction; session_meta.forked_from_id
// makes the session a fork. Lines have no ids, so a line's number is its id (rollouts only grow).

import type { ContentBlock } from '@agent-ledger/core';
import { withoutInjected } from '../injected-context.ts';
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

const KINDS = new Set(['session_meta', 'response_item', 'compacted', 'turn_context', 'event_msg']);
const ASSISTANT_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output']);
/** User-role items Codex writes for the model, not typed by the user. */
const HARNESS_PREFIXES = ['<environment_context>', '<user_instructions>', '<permissions', '# AGENTS.md instructions'];

export const codexFormat: TranscriptFormat = {
  name: 'codex',
  detect: (firstLines) =>
    firstLines.some((line) => {
      const parsed = parseJsonLine({ number: 0, text: line });
      return 'value' in parsed && KINDS.has(parsed.value.type as string) && typeof parsed.value.payload === 'object';
    }),
  read: readCodex,
};

type Group = TurnEntry & { blocksByLine: ContentBlock[][] };

/** What reading one file remembers from line to line. */
interface Reading {
  started: boolean;
  /** The turn being merged from consecutive items of one side (a reply and its calls, a run of outputs). */
  group: Group | null;
  /** The model the newest turn_context names. */
  model?: string;
  /** The calls of the newest assistant turn: a results group ending the file must answer them all. */
  openCalls: string[];
  /** The line those calls start on: where a round still being written is read again from. */
  callsLine: number;
}

/** Where an item is in the file, and when it was written. */
interface ItemLine {
  number: number;
  time: number | undefined;
}

async function* readCodex(lines: AsyncIterable<SourceLine>): AsyncGenerator<TranscriptEntry> {
  const reading: Reading = { started: false, group: null, openCalls: [], callsLine: 0 };
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
  const { type } = parsed.value;
  const payload = (parsed.value.payload ?? {}) as Json;
  const at: ItemLine = { number: line.number, time: timeOf(parsed.value.timestamp) };
  if (type === 'session_meta') return sessionMeta(reading, payload, at);
  if (!reading.started) return [{ kind: 'problem', line: line.number, message: 'comes before the session_meta line; skipped' }];
  if (type === 'turn_context' && typeof payload.model === 'string') reading.model = payload.model;
  if (type === 'compacted') return compacted(reading, payload, at);
  if (type !== 'response_item') return [];
  return responseItem(reading, payload, at);
}

/** The first session_meta names the source session (a fork when it has forked_from_id); later ones are ignored. */
function sessionMeta(reading: Reading, payload: Json, at: ItemLine): TranscriptEntry[] {
  if (reading.started || typeof payload.id !== 'string') return [];
  reading.started = true;
  const forkedFrom = typeof payload.forked_from_id === 'string' ? payload.forked_from_id : undefined;
  const start = timeOf(payload.timestamp) ?? at.time;
  return [
    {
      kind: 'session',
      key: `codex:${payload.id}`,
      label: sessionLabel(
        'codex',
        typeof payload.cwd === 'string' ? payload.cwd : undefined,
        start,
        forkedFrom ? `fork of ${forkedFrom}` : undefined,
      ),
      ...(forkedFrom ? { forkOf: { key: `codex:${forkedFrom}`, ...(start === undefined ? {} : { atTime: start }) } } : {}),
    },
  ];
}

/** A `compacted` line: the turn before it ends, then the compaction (its summary, or a note when encrypted). */
function compacted(reading: Reading, payload: Json, at: ItemLine): TranscriptEntry[] {
  const flushed = flush(reading);
  const message = typeof payload.message === 'string' ? payload.message : '';
  const replacement = Array.isArray(payload.replacement_history) ? payload.replacement_history.length : 0;
  return [
    ...flushed,
    {
      kind: 'compaction',
      lineIds: [`L${at.number}`],
      summary: message || '(Codex compacted remotely here: the summary is encrypted and could not be read.)',
      trigger: 'threshold',
      ...(at.time === undefined ? {} : { timestamp: at.time }),
      metadata: { codex: { replacementHistoryItems: replacement, ...(message ? {} : { opaque: true }) } },
      line: at.number,
    },
  ];
}

/** A response_item: messages, calls and their outputs join the turn of their side. */
function responseItem(reading: Reading, payload: Json, at: ItemLine): TranscriptEntry[] {
  const itemType = payload.type;
  if (itemType === 'message' && payload.role === 'assistant') return add(reading, 'assistant', textBlocks(payload.content), at);
  if (itemType === 'message' && payload.role === 'user') {
    const blocks = textBlocks(payload.content);
    const harness = blocks.every(
      (block) => block.type === 'text' && HARNESS_PREFIXES.some((prefix) => block.text.trimStart().startsWith(prefix)),
    );
    return harness ? [] : add(reading, 'user', blocks, at);
  }
  if (typeof itemType === 'string' && ASSISTANT_ITEMS.has(itemType)) return add(reading, 'assistant', [toolUse(payload)], at);
  if (typeof itemType === 'string' && OUTPUT_ITEMS.has(itemType)) {
    const result: ContentBlock = {
      type: 'tool_result',
      tool_use_id: String(payload.call_id ?? ''),
      content: outputText(payload.output),
    };
    return add(reading, 'user', [result], at);
  }
  // reasoning (its summary is the model's own notes; the full text is encrypted), web searches and
  // developer/system messages are not turns.
  return [];
}

/** An item's blocks: joined to the group of its side (a user's words always start a turn), else a new group. */
function add(reading: Reading, role: 'user' | 'assistant', blocks: ContentBlock[], at: ItemLine): TranscriptEntry[] {
  const lineId = `L${at.number}`;
  const { group } = reading;
  if (group && group.role === role && !(role === 'user' && !blocks.every((block) => block.type === 'tool_result'))) {
    group.lineIds.push(lineId);
    group.blocksByLine.push(blocks);
    return [];
  }
  const flushed = flush(reading);
  reading.group = {
    kind: 'turn',
    role,
    content: [],
    blocksByLine: [blocks],
    lineIds: [lineId],
    line: at.number,
    ...(at.time === undefined ? {} : { timestamp: at.time }),
    ...(role === 'assistant' && reading.model ? { model: reading.model } : {}),
  };
  return flushed;
}

/** Ends the group: its turn (a skip when it holds no blocks); an assistant turn's calls become the open ones. */
function flush(reading: Reading): TranscriptEntry[] {
  const entry = reading.group;
  reading.group = null;
  if (!entry) return [];
  if (entry.role === 'assistant') {
    reading.openCalls = callsOf(entry.blocksByLine.flat());
    reading.callsLine = entry.line;
  }
  const content = entry.blocksByLine.flat();
  return [content.length > 0 ? { ...entry, content } : { kind: 'skip', lineIds: entry.lineIds, line: entry.line }];
}

/** What the file's end leaves: a round still being written is left for the next import. */
function endOfFile(reading: Reading): TranscriptEntry[] {
  // A tool round that ends the file part-way (calls with no results, or not all of them) is still
  // being written (tool-rounds.ts): left for the next import.
  const last = reading.group;
  if (last) {
    const blocks = last.blocksByLine.flat();
    const inProgress =
      last.role === 'assistant' ? callsOf(blocks).length > 0 : isResults(blocks) && !answersEveryCall(blocks, reading.openCalls);
    if (inProgress) {
      reading.group = null;
      // From the calls' line: the next import reads the round whole, calls and results.
      return [{ kind: 'unfinished', line: last.role === 'assistant' ? last.line : reading.callsLine }];
    }
  }
  return flush(reading);
}

function isResults(blocks: readonly ContentBlock[]): boolean {
  return blocks.length > 0 && blocks.every((block) => block.type === 'tool_result');
}

function textBlocks(content: unknown): ContentBlock[] {
  // What the ledger's own hooks injected is not the user's words (injected-context.ts).
  const text = (value: string): ContentBlock[] => {
    const kept = withoutInjected(value);
    return kept ? [{ type: 'text', text: kept }] : [];
  };
  if (typeof content === 'string') return text(content);
  if (!Array.isArray(content)) return [];
  return (content as Json[]).flatMap((part): ContentBlock[] => {
    if ((part?.type === 'input_text' || part?.type === 'output_text' || part?.type === 'text') && typeof part.text === 'string') {
      return text(part.text);
    }
    if (part?.type === 'input_image') return [{ type: 'text', text: '[image not imported]' }];
    return [];
  });
}

function toolUse(payload: Json): ContentBlock {
  const id = String(payload.call_id ?? payload.id ?? 'call');
  if (payload.type === 'local_shell_call') return { type: 'tool_use', id, name: 'local_shell', input: payload.action ?? {} };
  if (payload.type === 'custom_tool_call')
    return { type: 'tool_use', id, name: String(payload.name ?? 'custom'), input: { input: payload.input } };
  let input: unknown = payload.arguments;
  if (typeof payload.arguments === 'string') {
    try {
      input = JSON.parse(payload.arguments);
    } catch {
      input = { arguments: payload.arguments };
    }
  }
  return { type: 'tool_use', id, name: String(payload.name ?? 'function'), input: input ?? {} };
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return (output as Json[]).map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  }
  if (output && typeof output === 'object' && typeof (output as Json).content === 'string')
    return (output as Json).content as string;
  return JSON.stringify(output ?? '');
}
