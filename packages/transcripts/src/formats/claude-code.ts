// Claude Code session JSONL (~/.claude/projects/<project>/<sessionId>.jsonl). Each line carries a
// uuid and the parentUuid it follows; an assistant reply is written one line per content block
// (the lines share message.id) and is merged back into one turn; consecutive tool_result lines
// become one tool_result turn; a compact_boundary line and the isCompactSummary line after it
// become one compaction turn (the raw lines before it stay, as Claude Code keeps them). A subagent
// file (agent-<id>.jsonl, every line isSidechain) is a fork of its parent session.

import path from 'node:path';
import type { ContentBlock, TextBlock } from '@agent-ledger/core';
import { withoutInjected } from '../injected-context.ts';
import { parseJsonLine } from '../read-lines.ts';
import { answersEveryCall, callsOf } from '../tool-rounds.ts';
import {
  type SourceLine,
  type SourceSession,
  sessionLabel,
  type TranscriptEntry,
  type TranscriptFormat,
  type TurnEntry,
  timeOf,
} from '../transcript-entry.ts';

type Json = Record<string, unknown>;

const CHAINLESS = new Set(['summary', 'ai-title', 'custom-title', 'file-history-snapshot', 'queue-operation']);

export const claudeCodeFormat: TranscriptFormat = {
  name: 'claude-code',
  detect: (firstLines) =>
    firstLines.some((line) => {
      const parsed = parseJsonLine({ number: 0, text: line });
      if (!('value' in parsed)) return false;
      const value = parsed.value;
      return (
        (typeof value.sessionId === 'string' && typeof value.uuid === 'string') ||
        (value.type === 'summary' && 'leafUuid' in value) ||
        value.type === 'file-history-snapshot'
      );
    }),
  read: readClaudeCode,
};

interface Group {
  kind: 'assistant' | 'results';
  messageId?: string;
  entry: TurnEntry & { blocksByLine: ContentBlock[][] };
}

/** A compact_boundary line, held until the line after it says whether its summary follows. */
interface HeldBoundary {
  value: Json;
  line: number;
}

/** What reading one file remembers from line to line. */
interface Reading {
  path: string;
  agentFile: boolean;
  started: boolean;
  title?: string;
  /** The turn being merged from several lines (a streamed reply, a run of tool results). */
  group: Group | null;
  /** Lines of the newest assistant turn: tool results naming any of them answer it. */
  answeredLines: Set<string>;
  /** The tool calls of the newest assistant turn: its results group is whole once it answers them all. */
  openCalls: string[];
  /** The line those calls start on: where a round still being written is read again from. */
  callsLine: number;
  boundary: HeldBoundary | null;
}

/** A line of the conversation chain (it has a uuid), as the entry functions take it. */
interface ChainLine {
  value: Json;
  uuid: string;
  parentLineId: string | null;
  message: Json;
  line: number;
}

async function* readClaudeCode(lines: AsyncIterable<SourceLine>, origin: { path: string }): AsyncGenerator<TranscriptEntry> {
  const reading: Reading = {
    path: origin.path,
    agentFile: /^agent-.*\.jsonl$/.test(path.basename(origin.path)),
    started: false,
    group: null,
    answeredLines: new Set(),
    openCalls: [],
    callsLine: 0,
    boundary: null,
  };
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
  const entries: TranscriptEntry[] = [];
  if (!reading.started && typeof value.sessionId === 'string') entries.push(sessionOf(reading, value));
  if (typeof value.uuid !== 'string' || CHAINLESS.has(value.type as string)) {
    noteTitle(reading, value);
    return entries;
  }
  if (!reading.started) return [{ kind: 'problem', line: line.number, message: 'has a uuid but no sessionId; skipped' }];
  const chain: ChainLine = {
    value,
    uuid: value.uuid,
    parentLineId: typeof value.parentUuid === 'string' ? value.parentUuid : null,
    message: (value.message ?? {}) as Json,
    line: line.number,
  };
  if (reading.boundary) {
    const held = reading.boundary;
    reading.boundary = null;
    if (value.isCompactSummary === true) {
      entries.push(compactionFrom(held, { value, text: textOf(chain.message.content) }));
      return entries;
    }
    entries.push(compactionFrom(held));
  }
  entries.push(...chainEntries(reading, chain));
  return entries;
}

/** What a line of the chain adds, by its kind. */
function chainEntries(reading: Reading, chain: ChainLine): TranscriptEntry[] {
  const { value } = chain;
  if (value.type === 'system' && value.subtype === 'compact_boundary') return boundaryLine(reading, chain);
  // Inline sidechains of old versions: their own conversation, not this one (agent files hold them now).
  const skip =
    (value.isSidechain === true && !reading.agentFile) ||
    value.isMeta === true ||
    (value.type !== 'user' && value.type !== 'assistant');
  if (skip) return skipLine(reading, chain);
  return value.type === 'assistant' ? assistantLine(reading, chain) : userLine(reading, chain);
}

/** The source session, named by the first line with a sessionId (a subagent file: a fork of its parent). */
function sessionOf(reading: Reading, value: Json): SourceSession {
  reading.started = true;
  const sessionId = value.sessionId as string;
  const time = timeOf(value.timestamp);
  const project = typeof value.cwd === 'string' ? value.cwd : undefined;
  if (!reading.agentFile)
    return { kind: 'session', key: `claude-code:${sessionId}`, label: sessionLabel('claude-code', project, time, reading.title) };
  const agentId =
    typeof value.agentId === 'string' ? value.agentId : path.basename(reading.path, '.jsonl').replace(/^agent-/, '');
  return {
    kind: 'session',
    key: `claude-code:${sessionId}/agent-${agentId}`,
    label: sessionLabel('claude-code', project, time, `subagent ${agentId}`),
    forkOf: {
      key: `claude-code:${sessionId}`,
      subagent: agentId,
      ...(time === undefined ? {} : { atTime: time }),
    },
  };
}

/** A line outside the chain (a summary, a title, a snapshot): only a title is kept, for the label. */
function noteTitle(reading: Reading, value: Json): void {
  if (value.type === 'summary' && typeof value.summary === 'string') reading.title ??= value.summary;
  if (value.type === 'ai-title' && typeof value.aiTitle === 'string') reading.title ??= value.aiTitle;
}

/** A compact_boundary: held until the next line, which may be its summary. */
function boundaryLine(reading: Reading, chain: ChainLine): TranscriptEntry[] {
  const flushed = flush(reading);
  reading.boundary = { value: chain.value, line: chain.line };
  return flushed;
}

/** A line that adds no turn: a line of the group it follows, else a skip entry of its own. */
function skipLine(reading: Reading, chain: ChainLine): TranscriptEntry[] {
  const { group } = reading;
  const { uuid, parentLineId } = chain;
  if (group && parentLineId !== null && group.entry.lineIds.includes(parentLineId)) {
    group.entry.lineIds.push(uuid);
    group.entry.blocksByLine.push([]);
    return [];
  }
  return [...flush(reading), { kind: 'skip', lineIds: [uuid], parentLineId, line: chain.line }];
}

/** An assistant line: the next block of the reply being merged (same message.id), or a new reply. */
function assistantLine(reading: Reading, chain: ChainLine): TranscriptEntry[] {
  const { message } = chain;
  const blocks = toBlocks(message.content);
  const messageId = typeof message.id === 'string' ? message.id : undefined;
  const { group } = reading;
  if (group?.kind === 'assistant' && messageId !== undefined && group.messageId === messageId) {
    group.entry.lineIds.push(chain.uuid);
    group.entry.blocksByLine.push(blocks);
    return [];
  }
  const flushed = flush(reading);
  const timestamp = timeOf(chain.value.timestamp);
  reading.group = {
    kind: 'assistant',
    ...(messageId === undefined ? {} : { messageId }),
    entry: {
      kind: 'turn',
      role: 'assistant',
      content: [],
      blocksByLine: [blocks],
      lineIds: [chain.uuid],
      parentLineId: chain.parentLineId,
      line: chain.line,
      ...(timestamp === undefined ? {} : { timestamp }),
      ...(typeof message.model === 'string' ? { model: message.model } : {}),
      ...(messageId === undefined ? {} : { metadata: { messageId } }),
    },
  };
  return flushed;
}

/** A user line: tool results join the results group they follow (or start one); anything else is a turn. */
function userLine(reading: Reading, chain: ChainLine): TranscriptEntry[] {
  const blocks = toBlocks(chain.message.content);
  const { uuid, parentLineId, line } = chain;
  const onlyResults = blocks.length > 0 && blocks.every((block) => block.type === 'tool_result');
  const { group } = reading;
  if (onlyResults && parentLineId !== null) {
    const joins =
      group?.kind === 'results' && (group.entry.lineIds.includes(parentLineId) || reading.answeredLines.has(parentLineId));
    if (group && joins) {
      group.entry.lineIds.push(uuid);
      group.entry.blocksByLine.push(blocks);
      return [];
    }
  }
  const flushed = flush(reading);
  const timestamp = timeOf(chain.value.timestamp);
  const entry: TurnEntry & { blocksByLine: ContentBlock[][] } = {
    kind: 'turn',
    role: 'user',
    content: [],
    blocksByLine: [blocks],
    lineIds: [uuid],
    parentLineId,
    line,
    ...(timestamp === undefined ? {} : { timestamp }),
  };
  if (onlyResults) {
    reading.group = { kind: 'results', entry };
    return flushed;
  }
  const content = blocks;
  return [...flushed, content.length > 0 ? { ...entry, content } : { kind: 'skip', lineIds: [uuid], parentLineId, line }];
}

/** What the file's end leaves: a round or compaction still being written is left for the next import. */
function endOfFile(reading: Reading): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const { group } = reading;
  // A tool round that ends the file without a result for every call is still being written
  // (tool-rounds.ts): left for the next import.
  if (group && roundInProgress(group, reading.openCalls)) {
    // From the calls' line: the next import reads the round whole, calls and results.
    entries.push({ kind: 'unfinished', line: group.kind === 'assistant' ? group.entry.line : reading.callsLine });
    reading.group = null;
  }
  entries.push(...flush(reading));
  // A boundary is followed by its summary line; one that ends the file is a compaction Claude Code
  // is still writing. Left for the next import, which reads both lines (importing it now would
  // make a compaction with no summary, and the summary could then never join it).
  if (reading.boundary) entries.push({ kind: 'unfinished', line: reading.boundary.line });
  return entries;
}

/** Ends the group: its turn (a skip when it holds no blocks); an assistant turn's calls become the open ones. */
function flush(reading: Reading): TranscriptEntry[] {
  const { group } = reading;
  if (!group) return [];
  const { entry } = group;
  if (group.kind === 'assistant') {
    reading.answeredLines = new Set(entry.lineIds);
    reading.openCalls = callsOf(entry.blocksByLine.flat());
    reading.callsLine = entry.line;
  }
  reading.group = null;
  const content = entry.blocksByLine.flat();
  return [
    content.length > 0
      ? { ...entry, content }
      : { kind: 'skip', lineIds: entry.lineIds, parentLineId: entry.parentLineId, line: entry.line },
  ];
}

/** A boundary and its summary line (when it came) as one compaction. */
function compactionFrom(held: HeldBoundary, summaryLine?: { value: Json; text: string }): TranscriptEntry {
  const metadata = (held.value.compactMetadata ?? {}) as Json;
  const preserved = metadata.preservedSegment as Json | undefined;
  const logicalParent = typeof held.value.logicalParentUuid === 'string' ? held.value.logicalParentUuid : undefined;
  return {
    kind: 'compaction',
    lineIds: [held.value.uuid as string, ...(summaryLine ? [summaryLine.value.uuid as string] : [])],
    parentLineId: logicalParent,
    summarizedThroughLineId: logicalParent,
    ...(typeof preserved?.headUuid === 'string' ? { firstKeptLineId: preserved.headUuid } : {}),
    summary: summaryLine?.text ?? '(Claude Code compacted here; its summary line is missing from the file.)',
    trigger: metadata.trigger === 'auto' ? 'threshold' : 'manual',
    timestamp: timeOf(held.value.timestamp),
    metadata: {
      claudeCode: {
        ...(typeof metadata.preTokens === 'number' ? { preTokens: metadata.preTokens } : {}),
        ...(typeof metadata.postTokens === 'number' ? { postTokens: metadata.postTokens } : {}),
      },
    },
    line: held.line,
  };
}

/** A group ending the file in the middle of a tool round: calls with no results yet, or not all results. */
function roundInProgress(group: Group, openCalls: readonly string[]): boolean {
  const blocks = group.entry.blocksByLine.flat();
  return group.kind === 'assistant' ? callsOf(blocks).length > 0 : !answersEveryCall(blocks, openCalls);
}

/** Anthropic-shaped content → the blocks the ledger stores; thinking is left out, images named. */
export function toBlocks(content: unknown): ContentBlock[] {
  // What the ledger's own hooks injected is not the user's words (injected-context.ts).
  if (typeof content === 'string') return textBlock(withoutInjected(content));
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlock[] = [];
  for (const block of content as Json[]) {
    if (block?.type === 'text' && typeof block.text === 'string') blocks.push(...textBlock(withoutInjected(block.text)));
    else if (block?.type === 'image') blocks.push({ type: 'text', text: imageNote(block) });
    else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} });
    } else if (block?.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      blocks.push({
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: resultContent(block.content),
        ...(block.is_error === true ? { is_error: true } : {}),
      });
    }
  }
  return blocks;
}

function textBlock(text: string): ContentBlock[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

function resultContent(content: unknown): string | TextBlock[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Json[]).flatMap((part): TextBlock[] => {
    if (part?.type === 'text' && typeof part.text === 'string' && part.text !== '') return [{ type: 'text', text: part.text }];
    if (part?.type === 'image') return [{ type: 'text', text: imageNote(part) }];
    return [];
  });
}

function imageNote(block: Json): string {
  const source = (block.source ?? {}) as Json;
  return `[image${typeof source.media_type === 'string' ? ` ${source.media_type}` : ''} not imported]`;
}

/** The text of a message's content, for a compaction summary. */
function textOf(content: unknown): string {
  return toBlocks(content)
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n');
}
