// One file that anchors the whole ledger: each event channel's head (the events ledger's
// checkpoint) and each session's head (the agents ledger's). Written by `nexus checkpoint`, read by
// `nexus verify --checkpoint` and by `nexus events verify --checkpoint` (which also reads the
// events-only files `nexus events checkpoint` writes).

import { readFile } from 'node:fs/promises';
import { parseSessionHeadMarks, type SessionHeadMark } from '@agent-ledger/agents-ledger';
import { InvalidInputError } from '@agent-ledger/core';
import { CHECKPOINT_FORMAT, type EventsCheckpoint, parseCheckpoint } from '@agent-ledger/events-ledger';

export const LEDGER_CHECKPOINT_FORMAT = 'nexus-ledger-checkpoint/v1';

export interface LedgerCheckpoint {
  format: typeof LEDGER_CHECKPOINT_FORMAT;
  takenAt: number;
  channels: EventsCheckpoint['channels'];
  sessions: SessionHeadMark[];
}

export interface ReadCheckpoint {
  events: EventsCheckpoint;
  /** Null for an events-only checkpoint. */
  sessions: SessionHeadMark[] | null;
}

/** A checkpoint file of either kind, checked field by field so a damaged file gets a clear error. */
export async function readCheckpointFile(file: string): Promise<ReadCheckpoint> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(`cannot read the checkpoint file ${file}: ${(error as Error).message}`, 'checkpoint');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`the checkpoint file ${file} is not valid JSON: ${(error as Error).message}`, 'checkpoint');
  }
  const record = value as Partial<LedgerCheckpoint> | null;
  if (typeof record === 'object' && record !== null && record.format === LEDGER_CHECKPOINT_FORMAT) {
    return {
      events: parseCheckpoint({ format: CHECKPOINT_FORMAT, takenAt: record.takenAt, channels: record.channels }),
      sessions: parseSessionHeadMarks(record.sessions),
    };
  }
  if (typeof record === 'object' && record !== null && (record as { format?: unknown }).format === CHECKPOINT_FORMAT)
    return { events: parseCheckpoint(value), sessions: null };
  throw new InvalidInputError(
    `${file} is not a checkpoint: expected "format": "${LEDGER_CHECKPOINT_FORMAT}" (as \`nexus checkpoint\` writes) ` +
      `or "${CHECKPOINT_FORMAT}" (as \`nexus events checkpoint\` writes).`,
    'checkpoint',
  );
}
