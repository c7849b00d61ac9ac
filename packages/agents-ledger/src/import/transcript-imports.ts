// What the ledger records about imported transcripts, as the ledger's own API: which ledger session a
// source session became, which turn holds each source line, where the next import of a file
// resumes, and the lease that keeps one import of a file at a time. An importer
// (@agent-ledger/transcripts) writes these through the ledger, never around it to the store.

import type { StoreOperations } from '@agent-ledger/store';

/** The import records: the store's ImportStore and LeaseStore operations an importer uses. */
export type TranscriptImports = Pick<
  StoreOperations,
  | 'getTranscriptSource'
  | 'insertTranscriptSource'
  | 'transcriptLineTurns'
  | 'recordTranscriptLines'
  | 'turnAtTime'
  | 'getTranscriptPosition'
  | 'putTranscriptPosition'
  | 'acquireLease'
  | 'leaseHolder'
  | 'releaseLease'
>;

export function transcriptImports(store: StoreOperations): TranscriptImports {
  return {
    getTranscriptSource: (key) => store.getTranscriptSource(key),
    insertTranscriptSource: (source) => store.insertTranscriptSource(source),
    transcriptLineTurns: (key, lineIds) => store.transcriptLineTurns(key, lineIds),
    recordTranscriptLines: (key, lines) => store.recordTranscriptLines(key, lines),
    turnAtTime: (sessionId, time) => store.turnAtTime(sessionId, time),
    getTranscriptPosition: (path) => store.getTranscriptPosition(path),
    putTranscriptPosition: (position) => store.putTranscriptPosition(position),
    acquireLease: (request) => store.acquireLease(request),
    leaseHolder: (name) => store.leaseHolder(name),
    releaseLease: (lease) => store.releaseLease(lease),
  };
}
