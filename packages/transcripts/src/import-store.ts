// The record of what was imported, through the ledger's import records (AgentsLedger.imports): which ledger
// session each source session became, and which turn holds each source line. Lines are recorded
// after the turns holding them are written, buffered and written a batch at a time (one store write
// per batch of turns, not one per line); lookups see the buffered lines too. Each lookup is by the
// source's key, so a re-run over a transcript costs O(lines), whatever the ledger holds.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { LeaseRequest, TranscriptPosition, TranscriptSourceRecord } from '@agent-ledger/store';

export interface SourceRecord {
  sessionId: string;
  format: string;
  path: string | null;
}

export interface ImportRecords {
  source(key: string): Promise<SourceRecord | undefined>;
  /** Records the ledger session a source session became (once: the first import of it). */
  addSource(source: TranscriptSourceRecord): Promise<void>;
  /** The turns holding lines: null for a known line before any turn; unknown lines are absent. */
  lineTurns(key: string, lineIds: readonly string[]): Promise<Map<string, string | null>>;
  /** Records a line (buffered until `flush`; a line recorded already keeps its turn). */
  addLine(key: string, lineId: string, turnId: string | null): Promise<void>;
  /** Writes the buffered lines, in one store write. */
  flush(): Promise<void>;
  /** The newest turn of a session at or before a time (for a subagent's fork point). */
  turnAtTime(sessionId: string, time: number): Promise<string | undefined>;
  /** Where the next import of a file resumes (resume-position.ts). */
  position(path: string): Promise<TranscriptPosition | undefined>;
  setPosition(position: TranscriptPosition): Promise<void>;
  /** One import of a file at a time, across processes (file-lease.ts). */
  acquireLease(request: LeaseRequest): Promise<boolean>;
  leaseHolder(name: string): Promise<string | null>;
  releaseLease(lease: { name: string; holder: string }): Promise<void>;
}

/** Buffered lines are written once this many wait, so memory stays flat on any transcript. */
const FLUSH_LINES = 5000;

/** The records of one import run (one buffer of lines; `flush` before dropping it). */
export function importRecords(ledger: AgentsLedger): ImportRecords {
  const store = ledger.imports;
  // Source key → line id → turn, not yet written.
  const pending = new Map<string, Map<string, string | null>>();
  let pendingCount = 0;
  const flush = async () => {
    for (const [key, lines] of pending) {
      await store.recordTranscriptLines(
        key,
        [...lines].map(([lineId, turnId]) => ({ lineId, turnId })),
      );
      pending.delete(key);
    }
    pendingCount = 0;
  };
  return {
    source: async (key) => {
      const found = await store.getTranscriptSource(key);
      return found ? { sessionId: found.sessionId, format: found.format, path: found.path } : undefined;
    },
    addSource: (source) => store.insertTranscriptSource(source),
    lineTurns: async (key, lineIds) => {
      const buffered = pending.get(key);
      const found = new Map<string, string | null>();
      const unbuffered: string[] = [];
      for (const lineId of lineIds) {
        const turnId = buffered?.get(lineId);
        if (turnId !== undefined) found.set(lineId, turnId);
        else unbuffered.push(lineId);
      }
      if (unbuffered.length > 0)
        for (const [lineId, turnId] of await store.transcriptLineTurns(key, unbuffered)) found.set(lineId, turnId);
      return found;
    },
    addLine: async (key, lineId, turnId) => {
      let lines = pending.get(key);
      if (!lines) {
        lines = new Map();
        pending.set(key, lines);
      }
      // The first record of a line wins, as in the store.
      if (lines.has(lineId)) return;
      lines.set(lineId, turnId);
      pendingCount += 1;
      if (pendingCount >= FLUSH_LINES) await flush();
    },
    flush,
    turnAtTime: (sessionId, time) => store.turnAtTime(sessionId, time),
    position: (path) => store.getTranscriptPosition(path),
    setPosition: (position) => store.putTranscriptPosition(position),
    acquireLease: (request) => store.acquireLease(request),
    leaseHolder: (name) => store.leaseHolder(name),
    releaseLease: (lease) => store.releaseLease(lease),
  };
}
