// Shared helpers for the runtime tests: both ledgers on one real SQLite file in a temp directory,
// loopback Messages API servers, the real Anthropic chat model pointed at them, and small readers.
// Everything opened here is registered with a `Resources` and closed by the test file's afterEach.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { storeOf } from '@agent-ledger/agents-ledger/testing';
import { type CompactionTurn, type NormalTurn, type SessionSettings, sequentialIds, type Turn } from '@agent-ledger/core';
import { createEventsLedger, type EventsLedger } from '@agent-ledger/events-ledger';
import { type LoopbackApi, type LoopbackOptions, type LoopbackReply, startLoopbackApi } from '@agent-ledger/loopback-api';
import type { Summarizer } from '@agent-ledger/summarizers';
import { type AnthropicChatModelOptions, type ChatModel, type ChatRuntime, createAnthropicChatModel } from '../src/index.ts';

export const CHAT_MODEL = 'claude-runtime-test';

/** Closes what a test opened, in a safe order: runtimes go idle, then servers close, then ledgers and directories. */
export class Resources {
  private runtimes: ChatRuntime[] = [];
  private servers: LoopbackApi[] = [];
  private closables: Array<{ close(): Promise<void> | void }> = [];
  private dirs: string[] = [];

  runtime<T extends ChatRuntime>(runtime: T): T {
    this.runtimes.push(runtime);
    return runtime;
  }

  async server(options: LoopbackOptions = {}): Promise<LoopbackApi> {
    const api = await startLoopbackApi(options);
    this.servers.push(api);
    return api;
  }

  /** An agents ledger and an events ledger on one store of a SQLite file in a fresh temp directory. */
  ledgers(options: { summarizer?: Summarizer } = {}): { ledger: AgentsLedger; events: EventsLedger; file: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-'));
    this.dirs.push(dir);
    const file = path.join(dir, 'ledger.db');
    let clock = 1_700_000_000_000;
    const ledger = openAgentsLedger(file, {
      generateId: sequentialIds(),
      now: () => {
        clock += 1000;
        return clock;
      },
      ...(options.summarizer ? { summarizer: options.summarizer } : {}),
    });
    this.closables.push(ledger);
    const events = createEventsLedger({ store: storeOf(ledger), generateId: sequentialIds(), now: () => clock });
    return { ledger, events, file };
  }

  /** Another agents ledger on the same file, as a restarted process would open it. */
  reopen(file: string): AgentsLedger {
    const ledger = openAgentsLedger(file);
    this.closables.push(ledger);
    return ledger;
  }

  async close(): Promise<void> {
    for (const runtime of this.runtimes.splice(0)) await runtime.idle();
    for (const server of this.servers.splice(0)) await server.close();
    for (const closable of this.closables.splice(0).reverse()) {
      try {
        await closable.close();
      } catch {
        // already closed
      }
    }
    for (const dir of this.dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The real Anthropic chat model on the real SDK, talking to a loopback server. */
export function chatModel(api: LoopbackApi, options: AnthropicChatModelOptions = {}): ChatModel {
  return createAnthropicChatModel({
    apiKey: 'test-key',
    baseURL: api.url,
    maxRetries: 0,
    timeoutMs: 10_000,
    model: CHAT_MODEL,
    ...options,
  });
}

export async function newSession(ledger: AgentsLedger, settings: Partial<SessionSettings> = {}) {
  return ledger.createSession({ settings });
}

export async function sessionHistory(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const session = await ledger.getSession(sessionId);
  const turns: Turn[] = [];
  if (!session.headTurnId) return turns;
  for await (const turn of ledger.getFullHistory(session.headTurnId)) turns.push(turn);
  return turns;
}

export function compactions(turns: readonly Turn[]): CompactionTurn[] {
  return turns.filter((turn): turn is CompactionTurn => turn.turnType === 'compaction');
}

export function normalTurns(turns: readonly Turn[]): NormalTurn[] {
  return turns.filter((turn): turn is NormalTurn => turn.turnType === 'normal');
}

/** Every turn the ledger holds: each session's own turns, through the public API. */
export async function countTurnRows(ledger: AgentsLedger): Promise<number> {
  let turns = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await ledger.listSessions({ limit: 100, offset });
    for (const session of page) {
      if (session.headTurnId)
        for await (const _turn of ledger.getFullHistory(session.headTurnId, { ownTurnsOnly: true })) turns += 1;
    }
    if (page.length < 100) return turns;
  }
}

/** Every event in the ledger's file (verify walks them all, every channel). */
export async function countEventRows(ledger: AgentsLedger): Promise<number> {
  return (await createEventsLedger({ store: storeOf(ledger) }).verify()).checked;
}

const WORDS = ['deploy', 'ticket', 'schema', 'retry', 'customer', 'invoice', 'cache', 'queue', 'review', 'incident', 'budget'];

/** Deterministic sentences of `words` words (about one estimated token each), different per seed. */
export function prose(words: number, seed: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    const word = WORDS[(seed * 7 + index * 3 + ((seed * index) % 5)) % WORDS.length] ?? 'word';
    out.push(index % 8 === 7 ? `${word}${seed}.` : word);
  }
  return `${out.join(' ')}.`;
}

/** A 400 the way the API words an overflow, with figures the runtime can read. */
export function overflowReply(promptTokens: number, limitTokens: number): LoopbackReply {
  return {
    kind: 'error',
    status: 400,
    errorType: 'invalid_request_error',
    message: `prompt is too long: ${promptTokens} tokens > ${limitTokens} maximum`,
  };
}

export const SERVER_ERROR: LoopbackReply = {
  kind: 'error',
  status: 500,
  errorType: 'api_error',
  message: 'Internal server error',
  headers: { 'retry-after-ms': '1' },
};

/** Waits (without a wall-clock assertion) until `condition` holds; the test timeout bounds it. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
