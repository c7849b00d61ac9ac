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

async function* readClaudeCode(lines: AsyncIterable<SourceLine>, origin: { path: string }): AsyncGenerator<TranscriptEntry> {
  const agentFile = /^agent-.*\.jsonl$/.test(path.basename(origin.path));
  let started = false;
  let title: string | undefined;
  let group: Group | null = null;
  /** Lines of the newest assistant turn: tool results naming any of them answer it. */
  let answeredLines = new Set<string>();
  /** The tool calls of the newest assistant turn: its results group is whole once it answers them all. */
  let openCalls: string[] = [];
  /** The line those calls start on: where a round still being written is read again from. */
  let callsLine = 0;
  let boundary: { value: Json; line: number } | null = null;

  const flush = (): TranscriptEntry | null => {
    if (!group) return null;
    const { entry } = group;
    if (group.kind === 'assistant') {
      answeredLines = new Set(entry.lineIds);
      openCalls = callsOf(entry.blocksByLine.flat());
      callsLine = entry.line;
    }
    group = null;
    const content = entry.blocksByLine.flat();
    return content.length > 0
      ? { ...entry, content }
      : { kind: 'skip', lineIds: entry.lineIds, parentLineId: entry.parentLineId, line: entry.line };
  };
  const compactionFrom = (held: { value: Json; line: number }, summaryLine?: { value: Json; text: string }): TranscriptEntry => {
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
  };

  for await (const line of lines) {
    if (line.text.trim() === '') continue;
    const parsed = parseJsonLine(line);
    if ('error' in parsed) {
      yield { kind: 'problem', line: line.number, message: parsed.error };
      continue;
    }
    const value = parsed.value;
    if (!started && typeof value.sessionId === 'string') {
      started = true;
      const sessionId = value.sessionId;
      const time = timeOf(value.timestamp);
      const project = typeof value.cwd === 'string' ? value.cwd : undefined;
      const agentId =
        typeof value.agentId === 'string' ? value.agentId : path.basename(origin.path, '.jsonl').replace(/^agent-/, '');
      yield agentFile
        ? {
            kind: 'session',
            key: `claude-code:${sessionId}/agent-${agentId}`,
            label: sessionLabel('claude-code', project, time, `subagent ${agentId}`),
            forkOf: {
              key: `claude-code:${sessionId}`,
              subagent: agentId,
              ...(time === undefined ? {} : { atTime: time }),
            },
          }
        : { kind: 'session', key: `claude-code:${sessionId}`, label: sessionLabel('claude-code', project, time, title) };
    }
    if (typeof value.uuid !== 'string' || CHAINLESS.has(value.type as string)) {
      if (value.type === 'summary' && typeof value.summary === 'string') title ??= value.summary;
      if (value.type === 'ai-title' && typeof value.aiTitle === 'string') title ??= value.aiTitle;
      continue;
    }
    if (!started) {
      yield { kind: 'problem', line: line.number, message: 'has a uuid but no sessionId; skipped' };
      continue;
    }
    const uuid = value.uuid;
    const parentLineId = typeof value.parentUuid === 'string' ? value.parentUuid : null;
    const message = (value.message ?? {}) as Json;

    if (boundary) {
      const held: { value: Json; line: number } = boundary;
      boundary = null;
      if (value.isCompactSummary === true) {
        yield compactionFrom(held, { value, text: textOf(message.content) });
        continue;
      }
      yield compactionFrom(held);
    }
    if (value.type === 'system' && value.subtype === 'compact_boundary') {
      const flushed = flush();
      if (flushed) yield flushed;
      boundary = { value, line: line.number };
      continue;
    }
    // Inline sidechains of old versions: their own conversation, not this one (agent files hold them now).
    const skip =
      (value.isSidechain === true && !agentFile) ||
      value.isMeta === true ||
      (value.type !== 'user' && value.type !== 'assistant');
    if (skip) {
      if (group && parentLineId !== null && group.entry.lineIds.includes(parentLineId)) {
        group.entry.lineIds.push(uuid);
        group.entry.blocksByLine.push([]);
      } else {
        const flushed = flush();
        if (flushed) yield flushed;
        yield { kind: 'skip', lineIds: [uuid], parentLineId, line: line.number };
      }
      continue;
    }
    const blocks = toBlocks(message.content);
    const timestamp = timeOf(value.timestamp);
    if (value.type === 'assistant') {
      const messageId = typeof message.id === 'string' ? message.id : undefined;
      if (group?.kind === 'assistant' && messageId !== undefined && group.messageId === messageId) {
        group.entry.lineIds.push(uuid);
        group.entry.blocksByLine.push(blocks);
        continue;
      }
      const flushed = flush();
      if (flushed) yield flushed;
      group = {
        kind: 'assistant',
        ...(messageId === undefined ? {} : { messageId }),
        entry: {
          kind: 'turn',
          role: 'assistant',
          content: [],
          blocksByLine: [blocks],
          lineIds: [uuid],
          parentLineId,
          line: line.number,
          ...(timestamp === undefined ? {} : { timestamp }),
          ...(typeof message.model === 'string' ? { model: message.model } : {}),
          ...(messageId === undefined ? {} : { metadata: { messageId } }),
        },
      };
      continue;
    }
    const onlyResults = blocks.length > 0 && blocks.every((block) => block.type === 'tool_result');
    if (onlyResults && parentLineId !== null) {
      const joins = group?.kind === 'results' && (group.entry.lineIds.includes(parentLineId) || answeredLines.has(parentLineId));
      if (group && joins) {
        group.entry.lineIds.push(uuid);
        group.entry.blocksByLine.push(blocks);
        continue;
      }
    }
    const flushed = flush();
    if (flushed) yield flushed;
    const entry: TurnEntry & { blocksByLine: ContentBlock[][] } = {
      kind: 'turn',
      role: 'user',
      content: [],
      blocksByLine: [blocks],
      lineIds: [uuid],
      parentLineId,
      line: line.number,
      ...(timestamp === undefined ? {} : { timestamp }),
    };
    if (onlyResults) group = { kind: 'results', entry };
    else {
      const content = blocks;
      yield content.length > 0 ? { ...entry, content } : { kind: 'skip', lineIds: [uuid], parentLineId, line: line.number };
    }
  }
  // A tool round that ends the file without a result for every call is still being written
  // (tool-rounds.ts): left for the next import.
  if (group && roundInProgress(group, openCalls)) {
    // From the calls' line: the next import reads the round whole, calls and results.
    yield { kind: 'unfinished', line: group.kind === 'assistant' ? group.entry.line : callsLine };
    group = null;
  }
  const flushed = flush();
  if (flushed) yield flushed;
  // A boundary is followed by its summary line; one that ends the file is a compaction Claude Code
  // is still writing. Left for the next import, which reads both lines (importing it now would
  // make a compaction with no summary, and the summary could then never join it).
  if (boundary) yield { kind: 'unfinished', line: boundary.line };
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
