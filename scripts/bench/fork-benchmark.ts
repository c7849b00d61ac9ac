// forkFrom from the head and from a turn deep in history that a compaction already summarized, and buildContext at each new fork's head, as operations to time for one history size.

import type { Fork } from '../../packages/agents-ledger/src/index.ts';
import type { BuiltHistory } from './build-history.ts';
import type { TimedOperation } from './measure.ts';
import { reportProgress } from './progress.ts';

export const FORK_FROM_HEAD = 'forkFrom head';
export const FORK_FROM_DEEP = 'forkFrom turn at 10% (summarized)';
export const CONTEXT_AT_HEAD_FORK = 'buildContext at head-fork head';
export const CONTEXT_AT_DEEP_FORK = 'buildContext at 10%-fork head';

export async function forkOperations(history: BuiltHistory): Promise<TimedOperation[]> {
  const { ledger, headTurnId, deepTurnId, turns: size } = history;
  // One fork of each kind to check the setup is what it claims, and to build contexts at.
  const headFork = await ledger.forkFrom(headTurnId, { label: 'bench head fork' });
  const deepFork = await ledger.forkFrom(deepTurnId, { label: 'bench deep fork' });
  if (!deepFork.forkPointSummarizedBy || !deepFork.baseCompactionId) {
    reportProgress(`  warning: the turn at 10% of the ${size}-turn history was not summarized by a compaction`);
  }
  const contextAt = (fork: Fork) => {
    const turnId = fork.session.headTurnId;
    if (!turnId) throw new Error('a fork always has a head');
    return () => ledger.buildContext(turnId, { sessionId: fork.session.id });
  };
  return [
    { name: FORK_FROM_HEAD, size, run: () => ledger.forkFrom(headTurnId) },
    { name: FORK_FROM_DEEP, size, run: () => ledger.forkFrom(deepTurnId) },
    { name: CONTEXT_AT_HEAD_FORK, size, run: contextAt(headFork) },
    { name: CONTEXT_AT_DEEP_FORK, size, run: contextAt(deepFork) },
  ];
}
