// What a runtime does when the model API says the prompt was too long: believe the provider, unless
// what the model already accepted says the report is wrong (overflow-judgement.ts). A believed count
// teaches the session its real window (calibrate, kept on the session so a restart remembers), a
// compaction makes room (or the one already running in the background), and the retry gets a budget
// that fits; a doubted one changes nothing and the retry goes out as it was. Each prompt the model
// answers is reported back (`promptAccepted`): it is the evidence, and it undoes a calibration its
// count refutes. Shared by the ledger's own runtime and the SDK adapters; each retries once.

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import {
  type CompactionTurn,
  ContextOverflowError,
  HeadConflictError,
  InvalidInputError,
  LedgerError,
  type Session,
  type SessionCalibration,
  type SessionSettings,
} from '@agent-ledger/core';
import type { CompactionScheduler } from './compaction-scheduler.ts';
import { judgeOverflow, type OverflowDoubt, type OverflowVerdict, refutesCalibration } from './overflow-judgement.ts';
import { type AcceptedPrompt, credibleCount, type PromptEvidence } from './prompt-evidence.ts';

/**
 * The session's window changed: a "prompt is too long" taught it (`overflow`), or a prompt the model
 * answered refuted what an earlier report taught (`accepted-prompt`); its settings were rescaled.
 */
export interface WindowLearnedNotice {
  type: 'window-learned';
  sessionId: string;
  trigger: 'overflow' | 'accepted-prompt';
  settings: SessionSettings;
  calibration: SessionCalibration | null;
}

// Without figures to calibrate from, the retry's budget is cut to the API's limit over its count with
// this margin, so an estimate that undercounts real tokens cannot overflow twice for the same reason.
const OVERFLOW_MARGIN = 0.9;

/** What the ledger's context may take of a session's window: less the reply's reserve and what goes beside it. */
export function contextBudget(settings: SessionSettings, overheadTokens = 0): number {
  return Math.max(0, settings.contextWindow - settings.reserveTokens - overheadTokens);
}

export interface OverflowRecoveryInput {
  sessionId: string;
  overflow: ContextOverflowError;
  /** The budget the refused prompt's context was built with. */
  budgetTokens: number;
  /** This ledger's estimate of the refused prompt: its context plus what went beside it. */
  estimatedTokens: number;
  /** What every prompt carries beside the ledger's context (tool definitions), estimated. */
  overheadTokens: number;
  /** The turn being answered: it stays raw (summarizing it would leave nothing to answer). */
  keepFromTurnId?: string;
  /** The overflow came from counting before sending, not from the API: its limit is our own. */
  preflight?: boolean;
}

export interface OverflowRecovery {
  /** The compaction that made room: the overflow one, or a background one that was running; null if none was needed or possible. */
  compaction: CompactionTurn | null;
  /** The budget to build the retry's context with. */
  budgetTokens: number;
  /** The session as calibrated, when the overflow carried the provider's count. */
  learned: Session | null;
  /**
   * Set when the report contradicts what the model accepted and was set aside: nothing was learned or
   * compacted and the budget is unchanged. A refused retry should say so (`refusedDespiteDoubt`).
   */
  doubt: OverflowDoubt | null;
}

export interface OverflowRecoveryDeps {
  ledger: AgentsLedger;
  scheduler: CompactionScheduler;
  /** What the model accepted, per session: one per runtime, fed by `promptAccepted`. */
  evidence: PromptEvidence;
  notify?: (notice: WindowLearnedNotice) => void;
}

/** Learns the window, makes room, and says the retry's budget. Throws ContextOverflowError when nothing can help. */
export async function recoverFromOverflow(deps: OverflowRecoveryDeps, input: OverflowRecoveryInput): Promise<OverflowRecovery> {
  const verdict = await weigh(deps, input);
  if (verdict.kind === 'doubt') {
    deps.evidence.of(input.sessionId).doubting = true;
    return { compaction: null, budgetTokens: input.budgetTokens, learned: null, doubt: verdict.doubt };
  }
  const learned = await learnWindow(deps, input, verdict.acceptedTokens);
  const compaction = await makeRoom(deps, input, learned !== null);
  const { overflow, overheadTokens } = input;
  let budgetTokens = input.budgetTokens;
  if (learned) {
    budgetTokens = Math.min(budgetTokens, contextBudget(learned.settings, overheadTokens));
  } else if (overflow.promptTokens && overflow.limitTokens && overflow.promptTokens > overflow.limitTokens) {
    const fits = Math.floor((input.estimatedTokens * overflow.limitTokens * OVERFLOW_MARGIN) / overflow.promptTokens);
    budgetTokens = Math.min(budgetTokens, Math.max(0, fits - overheadTokens));
  }
  return { compaction, budgetTokens, learned, doubt: null };
}

/**
 * A prompt the model answered: evidence for the reports to come. When the provider counted it and the
 * count refutes the session's calibration, the calibration is redone from it (the window grows back).
 * A failure to write that is not the answer's: the calibration stays, the next answer tries again.
 */
export async function promptAccepted(
  deps: OverflowRecoveryDeps,
  prompt: AcceptedPrompt & { calibration?: SessionCalibration | null },
): Promise<void> {
  const evidence = deps.evidence.accepted(prompt);
  if (prompt.calibration !== undefined) evidence.calibration = prompt.calibration;
  const { sessionId, estimatedTokens } = prompt;
  const providerTokens = credibleCount(prompt);
  if (!providerTokens) return;
  try {
    if (evidence.calibration === undefined) evidence.calibration = (await deps.ledger.getSession(sessionId)).calibration;
    if (!refutesCalibration(evidence.calibration, { providerTokens, estimatedTokens })) return;
    const session = await deps.ledger.calibrate(sessionId, {
      promptTokens: providerTokens,
      estimatedTokens,
      outcome: 'accepted',
    });
    evidence.calibration = session.calibration;
    announce(deps, session, 'accepted-prompt');
  } catch (error) {
    if (!LedgerError.isInstance(error)) throw error;
  }
}

/** The verdict on a report with figures; one without any is believed (there is nothing to weigh). */
async function weigh(deps: OverflowRecoveryDeps, input: OverflowRecoveryInput): Promise<OverflowVerdict> {
  const { overflow, sessionId, estimatedTokens } = input;
  const evidence = deps.evidence.of(sessionId);
  if (!overflow.promptTokens || estimatedTokens <= 0 || evidence.largestAcceptedTokens === 0) {
    return { kind: 'believe', acceptedTokens: evidence.largestAcceptedTokens };
  }
  const session = await deps.ledger.getSession(sessionId);
  evidence.calibration = session.calibration;
  return judgeOverflow(evidence, {
    promptTokens: overflow.promptTokens,
    limitTokens: input.preflight ? null : overflow.limitTokens,
    estimatedTokens,
    userWindowTokens: (session.calibration?.originalSettings ?? session.settings).contextWindow,
  });
}

/**
 * Calibrates the session from an overflow that carries the provider's count: null when it carries
 * none. The window is not learned below `acceptedTokens`. A window too small to hold a conversation
 * becomes the error the user acts on.
 */
async function learnWindow(
  deps: OverflowRecoveryDeps,
  input: OverflowRecoveryInput,
  acceptedTokens: number,
): Promise<Session | null> {
  const { overflow, sessionId, estimatedTokens } = input;
  if (!overflow.promptTokens || estimatedTokens <= 0) return null;
  const evidence = deps.evidence.of(sessionId);
  try {
    const session = await deps.ledger.calibrate(sessionId, {
      promptTokens: overflow.promptTokens,
      estimatedTokens,
      providerWindowTokens: input.preflight ? null : overflow.limitTokens,
      ...(acceptedTokens > 0 ? { acceptedTokens } : {}),
    });
    evidence.calibration = session.calibration;
    evidence.doubting = false;
    announce(deps, session, 'overflow');
    return session;
  } catch (error) {
    evidence.calibration = undefined; // recorded or not, read it again when it matters
    if (!InvalidInputError.isInstance(error)) throw error;
    throw new ContextOverflowError(`${overflow.message}: ${error.message}`, overflow.promptTokens, overflow.limitTokens, {
      cause: error,
    });
  }
}

function announce(deps: OverflowRecoveryDeps, session: Session, trigger: WindowLearnedNotice['trigger']): void {
  try {
    deps.notify?.({
      type: 'window-learned',
      sessionId: session.id,
      trigger,
      settings: session.settings,
      calibration: session.calibration,
    });
  } catch {
    // A listener's failure is the listener's.
  }
}

async function makeRoom(
  deps: OverflowRecoveryDeps,
  input: OverflowRecoveryInput,
  budgetAlreadyFits: boolean,
): Promise<CompactionTurn | null> {
  const { scheduler } = deps;
  // A background compaction already running frees the room: wait for it rather than start another.
  const landed = await scheduler.running(input.sessionId);
  if (landed) return landed;
  try {
    return await scheduler.compactNow(input.sessionId, 'overflow', undefined, input.keepFromTurnId);
  } catch (error) {
    // Another writer compacted this session meanwhile: that compaction made the room; retry with it.
    if (HeadConflictError.isInstance(error)) return null;
    // With the learned window the context is cut to fit anyway (oldest turns first, all kept in the
    // ledger): a compaction that could not help is no reason to fail the turn.
    if (budgetAlreadyFits && LedgerError.isInstance(error)) return null;
    const reason = LedgerError.isInstance(error) ? error.message : String(error);
    throw new ContextOverflowError(
      `The prompt is too long (${input.overflow.message}) and compacting could not make room: ${reason} Every turn is kept.`,
      input.overflow.promptTokens,
      input.overflow.limitTokens,
      { cause: error },
    );
  }
}
