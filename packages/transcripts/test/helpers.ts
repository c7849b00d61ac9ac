// Shared by the transcripts tests: a ledger on a real SQLite file in a temp folder, the fixtures'
// paths, and readers that collect a session's line into plain data to compare.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import type { Turn } from '@agent-ledger/core';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

export interface TempLedger {
  ledger: AgentsLedger;
  folder: string;
  cleanup(): void;
}

export function openTempLedger(): TempLedger {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'nexus-transcripts-'));
  const ledger = openAgentsLedger(path.join(folder, 'ledger.db'));
  return {
    ledger,
    folder,
    cleanup: () => {
      ledger.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

export async function historyOf(ledger: AgentsLedger, sessionId: string): Promise<Turn[]> {
  const head = (await ledger.getSession(sessionId)).headTurnId;
  const turns: Turn[] = [];
  if (head) for await (const turn of ledger.getFullHistory(head)) turns.push(turn);
  return turns;
}

/** A turn as text to compare: role and what it says, or the compaction's summary. */
export function describeTurn(turn: Turn): string {
  if (turn.turnType === 'compaction') return `compaction: ${turn.summary}`;
  return `${turn.role}: ${turn.content
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'tool_use'
          ? `tool_use ${block.id} ${block.name} ${JSON.stringify(block.input)}`
          : `tool_result ${block.tool_use_id}${block.is_error ? ' error' : ''} ${typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => part.text).join('\n')}`,
    )
    .join(' | ')}`;
}

/** How many sessions and turns the whole ledger holds (each session's own turns, through the public API). */
export async function countStored(ledger: AgentsLedger): Promise<{ sessions: number; turns: number }> {
  let sessions = 0;
  let turns = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await ledger.listSessions({ limit: 100, offset });
    for (const session of page) {
      sessions += 1;
      if (session.headTurnId)
        for await (const _turn of ledger.getFullHistory(session.headTurnId, { ownTurnsOnly: true })) turns += 1;
    }
    if (page.length < 100) return { sessions, turns };
  }
}
