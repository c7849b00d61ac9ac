// Shared helpers for the agents-ledger tests: turn inputs, temp ledgers on real SQLite files, and
// readers that collect async history into arrays.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ContentBlock,
  countMessagesTokens,
  type IdGenerator,
  InvalidInputError,
  type Message,
  type Session,
  type SessionSettings,
  sequentialIds,
  type Turn,
  toolResultIds,
  toolUseIds,
} from '@agent-ledger/core';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import type { SummarizeInput, SummarizeResult, Summarizer } from '@agent-ledger/summarizers';
import { expect, inject } from 'vitest';
import type { AgentsLedger, AgentsLedgerOptions, AppendTurnInput, BuildContextOptions, BuiltContext } from '../src/index.ts';
import { openAgentsLedger } from '../src/index.ts';
import { storeOf } from '../src/testing.ts';

export function userTurn(text: string): AppendTurnInput {
  return { role: 'user', content: text };
}

export function assistantTurn(text: string): AppendTurnInput {
  return { role: 'assistant', content: text };
}

export function toolUseTurn(id: string, name: string, input: unknown, text?: string): AppendTurnInput {
  const blocks: ContentBlock[] = text === undefined ? [] : [{ type: 'text', text }];
  blocks.push({ type: 'tool_use', id, name, input });
  return { role: 'assistant', content: blocks };
}

/** One assistant turn calling several tools at once. */
export function multiToolUseTurn(calls: readonly { id: string; name: string; input: unknown }[]): AppendTurnInput {
  return { role: 'assistant', content: calls.map((call) => ({ type: 'tool_use', ...call })) };
}

export function toolResultTurn(id: string, text: string): AppendTurnInput {
  return { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] };
}

/** One user turn answering several tool calls. */
export function multiToolResultTurn(results: readonly { id: string; text: string }[]): AppendTurnInput {
  return {
    role: 'user',
    content: results.map((result) => ({ type: 'tool_result', tool_use_id: result.id, content: result.text })),
  };
}

const WORDS = [
  'the',
  'schema',
  'migration',
  'user',
  'token',
  'ledger',
  'compaction',
  'fork',
  'session',
  'decided',
  'keep',
  'database',
  'index',
  'query',
  'budget',
  'summary',
  'tool',
  'result',
  'file',
  'error',
  'retry',
  'cache',
  'deploy',
  'build',
  'test',
  'review',
  'plan',
  'api',
  'config',
  'stream',
];

/**
 * Deterministic prose of `words` words drawn from a small vocabulary, split into sentences so the
 * extractive summarizer has material. `seed` picks the words.
 */
export function prose(words: number, seed = 1): string {
  let state = (seed * 2654435761 + 12345) >>> 0;
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = WORDS[state % WORDS.length] ?? 'word';
    const endsSentence = index % 9 === 8 || index === words - 1;
    out.push(endsSentence ? `${word}${index}.` : word);
  }
  const text = out.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const SMALL_SETTINGS: SessionSettings = { contextWindow: 1400, reserveTokens: 150, keepRecentTokens: 350 };

export interface TempLedger {
  ledger: AgentsLedger;
  dir: string;
  file: string;
  /** Opens another ledger on the same file (random ids unless `generateId` is given). */
  reopen(options?: Omit<AgentsLedgerOptions, 'store'>): AgentsLedger;
  /** Closes every ledger this helper opened and removes the directory. */
  cleanup(): void;
}

export function openTempLedger(options: Omit<AgentsLedgerOptions, 'store'> = {}): TempLedger {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-'));
  const file = path.join(dir, 'ledger.db');
  const opened: AgentsLedger[] = [];
  let clock = 1_700_000_000_000;
  let ledger: AgentsLedger;
  try {
    ledger = openAgentsLedger(file, {
      generateId: sequentialIds(),
      now: () => {
        clock += 1000;
        return clock;
      },
      ...options,
    });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  opened.push(ledger);
  return {
    ledger,
    dir,
    file,
    reopen(reopenOptions = {}) {
      const other = openAgentsLedger(file, reopenOptions);
      opened.push(other);
      return other;
    },
    cleanup() {
      for (const each of opened) {
        try {
          each.close();
        } catch {
          // already closed
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sequential ids with a prefix of their own, so a second generator never collides with the first. */
export function prefixedIds(prefix: string): IdGenerator {
  const inner = sequentialIds();
  return (kind) => inner(kind).replace(/^([ts])_/, `$1_${prefix}`);
}

export async function fullHistory(ledger: AgentsLedger, turnId: string): Promise<Turn[]> {
  const turns: Turn[] = [];
  for await (const turn of ledger.getFullHistory(turnId)) turns.push(turn);
  return turns;
}

export async function sessionHistory(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const session = await ledger.getSession(sessionId);
  return session.headTurnId ? fullHistory(ledger, session.headTurnId) : [];
}

/** Rows in a table of the ledger's file, read as another program would (tests only). */
export function countRows(ledger: AgentsLedger, table: 'agent_turns' | 'agent_sessions'): number {
  const raw = openRawSqlite(storeOf(ledger).location, { readonly: true });
  try {
    return (raw.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

/** Appends `count` alternating user/assistant prose turns in one batch. */
export async function appendConversation(
  ledger: AgentsLedger,
  sessionId: string,
  count: number,
  words = 40,
  seed = 1,
): Promise<string[]> {
  const inputs: AppendTurnInput[] = [];
  for (let index = 0; index < count; index += 1) {
    const text = prose(words, seed + index);
    inputs.push(index % 2 === 0 ? userTurn(text) : assistantTurn(text));
  }
  const turns = await ledger.appendTurns(sessionId, inputs);
  return turns.map((turn) => turn.id);
}

export async function newSession(ledger: AgentsLedger, settings: Partial<SessionSettings> = SMALL_SETTINGS): Promise<Session> {
  return ledger.createSession({ settings });
}

/**
 * The tokens a budget-too-small refusal of buildContext names: it is an InvalidInputError on
 * `budgetTokens` whose message says what the smallest valid context needs.
 */
export function neededTokens(error: unknown): number {
  expect(error).toBeInstanceOf(InvalidInputError);
  expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'budgetTokens' });
  const needs = /needs (\d+) tokens[\s\S]*budgetTokens of at least (\d+)\./.exec((error as Error).message);
  expect(needs, (error as Error).message).not.toBeNull();
  expect(needs?.[1]).toBe(needs?.[2]);
  return Number(needs?.[1]);
}

/** buildContext, or `{ needs }` when it refuses the budget as too small for any valid context. */
export async function contextOrNeeded(
  ledger: AgentsLedger,
  turnId: string,
  options: BuildContextOptions,
): Promise<BuiltContext | { needs: number }> {
  try {
    return await ledger.buildContext(turnId, options);
  } catch (error) {
    if (!InvalidInputError.isInstance(error) || error.field !== 'budgetTokens') throw error;
    return { needs: neededTokens(error) };
  }
}

/** tokens as buildContext defines them, recomputed from what it returned. */
export function recomputeTokens(ledger: AgentsLedger, context: BuiltContext): number {
  return ledger.tokenCounter.countText(context.system) + countMessagesTokens(ledger.tokenCounter, context.messages);
}

/**
 * Problems with a message list as the Messages API would see them: roles alternate and start with
 * the user; every tool_use is answered in the very next message (unless its id is in `pending`, a
 * call still waiting for its result at the turn the context was built for); every tool_result
 * answers a tool_use of the message right before it.
 */
export function apiShapeProblems(messages: readonly Message[], pending: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (index === 0 && message.role !== 'user') problems.push('first message is not a user message');
    const previous = messages[index - 1];
    if (previous && previous.role === message.role) problems.push(`messages ${index - 1} and ${index} share a role`);
    if (message.content.length === 0) problems.push(`message ${index} is empty`);
    const results = toolResultIds(message.content);
    if (results.length > 0) {
      if (message.role !== 'user') problems.push(`message ${index} is an assistant message with tool_result blocks`);
      const asked = new Set(previous && previous.role === 'assistant' ? toolUseIds(previous.content) : []);
      for (const id of results)
        if (!asked.has(id)) problems.push(`tool_result ${id} in message ${index} answers no call before it`);
    }
    const calls = toolUseIds(message.content);
    if (calls.length > 0) {
      if (message.role !== 'assistant') problems.push(`message ${index} is a user message with tool_use blocks`);
      const next = messages[index + 1];
      const answered = new Set(next ? toolResultIds(next.content) : []);
      for (const id of calls) {
        if (!answered.has(id) && !pending.has(id)) problems.push(`tool_use ${id} in message ${index} is not answered next`);
      }
    }
  });
  return problems;
}

/** A summarizer that fails, as a model call can. */
export function throwingSummarizer(error: unknown = new Error('summarizer down')): Summarizer & { calls: number } {
  const summarizer = {
    name: 'throwing',
    calls: 0,
    async summarize(_input: SummarizeInput): Promise<SummarizeResult> {
      summarizer.calls += 1;
      throw error;
    },
  };
  return summarizer;
}

/** A summarizer whose summary is far larger than anything it summarizes. */
export function hugeSummarizer(words = 5000): Summarizer {
  return {
    name: 'huge',
    async summarize(): Promise<SummarizeResult> {
      const text = prose(words, 7);
      return { text, usage: { inputTokens: 1, outputTokens: words } };
    },
  };
}

/** A summarizer that records its inputs and returns a short fixed summary. */
export function recordingSummarizer(text = 'Short summary.'): Summarizer & { inputs: SummarizeInput[] } {
  const summarizer = {
    name: 'recording',
    inputs: [] as SummarizeInput[],
    async summarize(input: SummarizeInput): Promise<SummarizeResult> {
      summarizer.inputs.push(input);
      return { text, usage: { inputTokens: 10, outputTokens: 2 } };
    },
  };
  return summarizer;
}

/** Normal turns only, in chain order. */
export function normalIds(turns: readonly Turn[]): string[] {
  return turns.filter((turn) => turn.turnType === 'normal').map((turn) => turn.id);
}

/**
 * A session compacted twice: 30 turns, C1, 20 turns, C2, then `trailingTurns` more. `line` is every
 * turn id in chain order, compactions included.
 */
export async function twiceCompacted(ledger: AgentsLedger, trailingTurns = 0) {
  const session = await newSession(ledger);
  const first = await appendConversation(ledger, session.id, 30, 40);
  const c1 = await ledger.compact(session.id);
  const second = await appendConversation(ledger, session.id, 20, 40, 100);
  const c2 = await ledger.compact(session.id);
  const third = trailingTurns > 0 ? await appendConversation(ledger, session.id, trailingTurns, 20, 200) : [];
  return { session, first, second, third, c1, c2, line: [...first, c1.id, ...second, c2.id, ...third] };
}

// ---------------------------------------------------------------------------------------------
// Both engines: the same test on a SQLite file and on a fresh PostgreSQL database.

export type Engine = 'sqlite' | 'postgres';

/** The run's PostgreSQL server (vitest's global setup), or null where none is installed. */
export function postgresServer(): string | null {
  return inject('postgresUrl');
}

/**
 * The engines a test runs on, each with the title of its describe block and whether it is skipped
 * (PostgreSQL where the machine has no server: the title says so).
 */
export function engines(): Array<{ engine: Engine; title: string; skip: boolean }> {
  const server = postgresServer();
  return [
    { engine: 'sqlite', title: 'on SQLite', skip: false },
    {
      engine: 'postgres',
      title: server ? 'on PostgreSQL' : 'on PostgreSQL (skipped: no PostgreSQL server here, apt-get install postgresql)',
      skip: server === null,
    },
  ];
}

export interface EngineLedger {
  ledger: AgentsLedger;
  engine: Engine;
  /** The file path or the postgres:// URL the ledger lives at. */
  location: string;
  /** Opens another ledger on the same database (closed by cleanup). */
  reopen(options?: Omit<AgentsLedgerOptions, 'store'>): AgentsLedger;
  /** Closes every ledger this helper opened (and removes a SQLite file's directory). */
  cleanup(): Promise<void>;
}

/** A fresh, empty database of `engine`: a SQLite file in a temp directory, or a new PostgreSQL database. */
export async function freshLocation(engine: Engine, label = 'ledger'): Promise<{ location: string; remove(): void }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-'));
    return { location: path.join(dir, 'ledger.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const server = postgresServer();
  if (!server) throw new Error('no PostgreSQL server in this run');
  return { location: await freshPostgresDatabase(server, label), remove: () => {} };
}

/** openTempLedger on either engine: sequential ids and a stepping clock unless `options` says otherwise. */
export async function openEngineLedger(
  engine: Engine,
  options: Omit<AgentsLedgerOptions, 'store'> = {},
  label = 'ledger',
): Promise<EngineLedger> {
  const { location, remove } = await freshLocation(engine, label);
  let clock = 1_700_000_000_000;
  const opened: AgentsLedger[] = [];
  const ledger = openAgentsLedger(location, {
    generateId: sequentialIds(),
    now: () => {
      clock += 1000;
      return clock;
    },
    ...options,
  });
  opened.push(ledger);
  return {
    ledger,
    engine,
    location,
    reopen(reopenOptions = {}) {
      const other = openAgentsLedger(location, reopenOptions);
      opened.push(other);
      return other;
    },
    async cleanup() {
      for (const each of opened) await each.close().catch(() => undefined);
      remove();
    },
  };
}
