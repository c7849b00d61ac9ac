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

async function* readCodex(lines: AsyncIterable<SourceLine>): AsyncGenerator<TranscriptEntry> {
  let started = false;
  let group: (TurnEntry & { blocksByLine: ContentBlock[][] }) | null = null;
  let model: string | undefined;
  /** The calls of the newest assistant turn: a results group ending the file must answer them all. */
  let openCalls: string[] = [];
  /** The line those calls start on: where a round still being written is read again from. */
  let callsLine = 0;
  const flush = (): TranscriptEntry | null => {
    const entry = group;
    group = null;
    if (!entry) return null;
    if (entry.role === 'assistant') {
      openCalls = callsOf(entry.blocksByLine.flat());
      callsLine = entry.line;
    }
    const content = entry.blocksByLine.flat();
    return content.length > 0 ? { ...entry, content } : { kind: 'skip', lineIds: entry.lineIds, line: entry.line };
  };
  const add = (role: 'user' | 'assistant', blocks: ContentBlock[], line: SourceLine, time: number | undefined) => {
    const lineId = `L${line.number}`;
    if (group && group.role === role && !(role === 'user' && !blocks.every((block) => block.type === 'tool_result'))) {
      group.lineIds.push(lineId);
      group.blocksByLine.push(blocks);
      return null;
    }
    const flushed = flush();
    group = {
      kind: 'turn',
      role,
      content: [],
      blocksByLine: [blocks],
      lineIds: [lineId],
      line: line.number,
      ...(time === undefined ? {} : { timestamp: time }),
      ...(role === 'assistant' && model ? { model } : {}),
    };
    return flushed;
  };

  for await (const line of lines) {
    if (line.text.trim() === '') continue;
    const parsed = parseJsonLine(line);
    if ('error' in parsed) {
      yield { kind: 'problem', line: line.number, message: parsed.error };
      continue;
    }
    const { type } = parsed.value;
    const payload = (parsed.value.payload ?? {}) as Json;
    const time = timeOf(parsed.value.timestamp);
    if (type === 'session_meta') {
      if (started || typeof payload.id !== 'string') continue;
      started = true;
      const forkedFrom = typeof payload.forked_from_id === 'string' ? payload.forked_from_id : undefined;
      const start = timeOf(payload.timestamp) ?? time;
      yield {
        kind: 'session',
        key: `codex:${payload.id}`,
        label: sessionLabel(
          'codex',
          typeof payload.cwd === 'string' ? payload.cwd : undefined,
          start,
          forkedFrom ? `fork of ${forkedFrom}` : undefined,
        ),
        ...(forkedFrom ? { forkOf: { key: `codex:${forkedFrom}`, ...(start === undefined ? {} : { atTime: start }) } } : {}),
      };
      continue;
    }
    if (!started) {
      yield { kind: 'problem', line: line.number, message: 'comes before the session_meta line; skipped' };
      continue;
    }
    if (type === 'turn_context' && typeof payload.model === 'string') model = payload.model;
    if (type === 'compacted') {
      const flushed = flush();
      if (flushed) yield flushed;
      const message = typeof payload.message === 'string' ? payload.message : '';
      const replacement = Array.isArray(payload.replacement_history) ? payload.replacement_history.length : 0;
      yield {
        kind: 'compaction',
        lineIds: [`L${line.number}`],
        summary: message || '(Codex compacted remotely here: the summary is encrypted and could not be read.)',
        trigger: 'threshold',
        ...(time === undefined ? {} : { timestamp: time }),
        metadata: { codex: { replacementHistoryItems: replacement, ...(message ? {} : { opaque: true }) } },
        line: line.number,
      };
      continue;
    }
    if (type !== 'response_item') continue;
    const itemType = payload.type;
    let flushed: TranscriptEntry | null = null;
    if (itemType === 'message' && payload.role === 'assistant')
      flushed = add('assistant', textBlocks(payload.content), line, time);
    else if (itemType === 'message' && payload.role === 'user') {
      const blocks = textBlocks(payload.content);
      const harness = blocks.every(
        (block) => block.type === 'text' && HARNESS_PREFIXES.some((prefix) => block.text.trimStart().startsWith(prefix)),
      );
      if (harness) continue;
      flushed = add('user', blocks, line, time);
    } else if (typeof itemType === 'string' && ASSISTANT_ITEMS.has(itemType))
      flushed = add('assistant', [toolUse(payload)], line, time);
    else if (typeof itemType === 'string' && OUTPUT_ITEMS.has(itemType)) {
      flushed = add(
        'user',
        [{ type: 'tool_result', tool_use_id: String(payload.call_id ?? ''), content: outputText(payload.output) }],
        line,
        time,
      );
    }
    // reasoning (its summary is the model's own notes; the full text is encrypted), web searches and
    // developer/system messages are not turns.
    if (flushed) yield flushed;
  }
  // A tool round that ends the file part-way (calls with no results, or not all of them) is still
  // being written (tool-rounds.ts): left for the next import.
  const last = group as (TurnEntry & { blocksByLine: ContentBlock[][] }) | null;
  if (last) {
    const blocks = last.blocksByLine.flat();
    const inProgress =
      last.role === 'assistant' ? callsOf(blocks).length > 0 : isResults(blocks) && !answersEveryCall(blocks, openCalls);
    if (inProgress) {
      // From the calls' line: the next import reads the round whole, calls and results.
      yield { kind: 'unfinished', line: last.role === 'assistant' ? last.line : callsLine };
      group = null;
    }
  }
  const flushed = flush();
  if (flushed) yield flushed;
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
