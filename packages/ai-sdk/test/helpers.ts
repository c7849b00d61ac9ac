// Shared by the middleware tests: a ledger on a real SQLite file in a temp folder, the AI SDK's own
// offline test model (MockLanguageModelV3) answering in the shapes providers do, and readers of
// what the ledger and the model saw.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import { estimateTokenCounter, type NormalTurn, type Turn } from '@agent-ledger/core';
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';

export interface TempLedger {
  ledger: AgentsLedger;
  file: string;
  close(): Promise<void>;
}

export function tempLedger(): TempLedger {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ai-sdk-'));
  const file = path.join(dir, 'ledger.db');
  const ledger = openAgentsLedger(file);
  return {
    ledger,
    file,
    async close() {
      await ledger.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A generate result in the shape providers give it. */
export function generated(content: LanguageModelV3Content[]): LanguageModelV3GenerateResult {
  const calls = content.some((part) => part.type === 'tool-call');
  return { content, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage: USAGE, warnings: [] };
}

/** The stream parts of a text reply in pieces, optionally failing after `failAfter` pieces. */
export function streamedText(pieces: string[], failAfter?: number): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
  ];
  for (const [index, delta] of pieces.entries()) {
    if (failAfter !== undefined && index === failAfter) {
      parts.push({ type: 'error', error: new Error('connection reset by peer') });
      return parts;
    }
    parts.push({ type: 'text-delta', id: 't1', delta });
  }
  parts.push({ type: 'text-end', id: 't1' }, { type: 'finish', usage: USAGE, finishReason: { unified: 'stop', raw: 'stop' } });
  return parts;
}

/** The newest user words of a prompt the model received. */
export function lastUserText(prompt: LanguageModelV3Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    const message = prompt[index];
    if (message?.role === 'user') return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }
  return '';
}

/** The prompt's tokens by the ledger's estimate: what the budget is kept in. */
export function promptTokens(call: LanguageModelV3CallOptions): number {
  return estimateTokenCounter.countText(JSON.stringify(call.prompt));
}

/** Every turn of a session's line, oldest first. */
export async function lineOf(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const { headTurnId } = await ledger.getSession(sessionId);
  const turns: Turn[] = [];
  if (headTurnId) for await (const turn of ledger.getFullHistory(headTurnId)) turns.push(turn);
  return turns;
}

export function normalTurns(turns: readonly Turn[]): NormalTurn[] {
  return turns.filter((turn): turn is NormalTurn => turn.turnType === 'normal');
}
