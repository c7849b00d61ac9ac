// What a runtime does when the model API says the prompt was too long: believe the provider. Its
// count teaches the session its real window (calibrate, kept on the session so a restart remembers),
// a compaction makes room (or the one already running in the background), and the retry gets a
// budget that fits. Shared by the ledger's own runtime and the SDK adapters; each retries once.

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

/** A "prompt is too long" taught the session its real window; its settings were rescaled to fit. */
export interface WindowLearnedNotice {
  type: 'window-learned';
  sessionId: string;
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
}

export interface OverflowRecoveryDeps {
  ledger: AgentsLedger;
  scheduler: CompactionScheduler;
  notify?: (notice: WindowLearnedNotice) => void;
}

/** Learns the window, makes room, and says the retry's budget. Throws ContextOverflowError when nothing can help. */
export async function recoverFromOverflow(deps: OverflowRecoveryDeps, input: OverflowRecoveryInput): Promise<OverflowRecovery> {
  const learned = await learnWindow(deps, input);
  const compaction = await makeRoom(deps, input, learned !== null);
  const { overflow, overheadTokens } = input;
  let budgetTokens = input.budgetTokens;
  if (learned) {
    budgetTokens = Math.min(budgetTokens, contextBudget(learned.settings, overheadTokens));
  } else if (overflow.promptTokens && overflow.limitTokens && overflow.promptTokens > overflow.limitTokens) {
    const fits = Math.floor((input.estimatedTokens * overflow.limitTokens * OVERFLOW_MARGIN) / overflow.promptTokens);
    budgetTokens = Math.min(budgetTokens, Math.max(0, fits - overheadTokens));
  }
  return { compaction, budgetTokens, learned };
}

/**
 * Calibrates the session from an overflow that carries the provider's count: null when it carries
 * none. A window too small to hold a conversation becomes the error the user acts on.
 */
async function learnWindow(deps: OverflowRecoveryDeps, input: OverflowRecoveryInput): Promise<Session | null> {
  const { overflow, sessionId, estimatedTokens } = input;
  if (!overflow.promptTokens || estimatedTokens <= 0) return null;
  try {
    const session = await deps.ledger.calibrate(sessionId, {
      promptTokens: overflow.promptTokens,
      estimatedTokens,
      providerWindowTokens: input.preflight ? null : overflow.limitTokens,
    });
    try {
      deps.notify?.({ type: 'window-learned', sessionId, settings: session.settings, calibration: session.calibration });
    } catch {
      // A listener's failure is the listener's.
    }
    return session;
  } catch (error) {
    if (!InvalidInputError.isInstance(error)) throw error;
    throw new ContextOverflowError(`${overflow.message}: ${error.message}`, overflow.promptTokens, overflow.limitTokens, {
      cause: error,
    });
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
