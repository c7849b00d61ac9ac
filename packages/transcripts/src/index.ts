// @agent-ledger/transcripts: the transcripts people already have (Claude Code, Codex, pi, Messages-API
// JSON, nexus-eval/v1) into the agents ledger, idempotently, and sessions back out as pi JSONL,
// Anthropic Messages JSON or nexus-eval/v1. See docs/import-export.md.

export { type AnthropicExportOptions, exportAnthropic } from './export/export-anthropic.ts';
export { exportNexus } from './export/export-nexus.ts';
export { exportPi } from './export/export-pi.ts';
export { claudeCodeFormat } from './formats/claude-code.ts';
export { codexFormat } from './formats/codex.ts';
export { isMessagesJson, messagesEntries } from './formats/messages-json.ts';
export { piFormat } from './formats/pi.ts';
export {
  FORMAT_NAMES,
  type ImportedSource,
  type ImportProgress,
  type ImportTranscriptsOptions,
  importedSession,
  importTranscripts,
  LINE_FORMATS,
  type TranscriptImportResult,
} from './import-transcripts.ts';
export { INJECTED_CLOSE, INJECTED_OPEN, markInjected, withoutInjected } from './injected-context.ts';
export type { FormatName, SourceLine, TranscriptEntry, TranscriptFormat } from './transcript-entry.ts';
export type { ImportProblem, WriteCounts } from './write-entries.ts';
