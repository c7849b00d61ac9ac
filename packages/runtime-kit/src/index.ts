export type { CompactionNotice, CompactionPolicy } from './compaction-scheduler.ts';
export { CompactionScheduler } from './compaction-scheduler.ts';
export type { OverflowFigures } from './overflow-message.ts';
export { overflowFromMessage } from './overflow-message.ts';
export type {
  OverflowRecovery,
  OverflowRecoveryDeps,
  OverflowRecoveryInput,
  WindowLearnedNotice,
} from './overflow-recovery.ts';
export { contextBudget, recoverFromOverflow } from './overflow-recovery.ts';
export { DEFAULT_RUNTIME_RETRIEVAL } from './retrieval-policy.ts';
