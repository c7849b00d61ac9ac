export type { CompactionNotice, CompactionPolicy } from './compaction-scheduler.ts';
export { CompactionScheduler } from './compaction-scheduler.ts';
export type { OverflowDoubt, OverflowReport, OverflowVerdict } from './overflow-judgement.ts';
export { DOUBT_FACTOR, judgeOverflow, refusedDespiteDoubt, refutesCalibration } from './overflow-judgement.ts';
export type { OverflowFigures } from './overflow-message.ts';
export { overflowFromMessage } from './overflow-message.ts';
export type {
  OverflowRecovery,
  OverflowRecoveryDeps,
  OverflowRecoveryInput,
  WindowLearnedNotice,
} from './overflow-recovery.ts';
export { contextBudget, promptAccepted, recoverFromOverflow } from './overflow-recovery.ts';
export type { AcceptedPrompt, SessionEvidence } from './prompt-evidence.ts';
export { PromptEvidence } from './prompt-evidence.ts';
export { DEFAULT_RUNTIME_RETRIEVAL } from './retrieval-policy.ts';
