// Learning a session's real window from the model API. When the provider refuses a prompt as too
// long, its count and limit are the truth and the ledger's estimate is not: the session's settings
// are rescaled into the estimate's units (window, reserve and raw keep alike), recorded with what
// was reported, so every later budget, threshold and compaction fits what the provider enforces,
// across restarts and in forks. Each calibration starts again from the user's own settings, so
// reports never compound.

import { InvalidInputError, type Session, type SessionCalibration, type SessionSettings } from '@agent-ledger/core';
import type { LedgerContext } from './ledger-context.ts';
import { requireSessionRow } from './store/chain.ts';
import { sessionFromRow } from './store/row-mapping.ts';

export interface CalibrationReport {
  /** What the provider counted for the prompt. */
  promptTokens: number;
  /** What the ledger's estimate counted for the same prompt (context + tool definitions). */
  estimatedTokens: number;
  /** The provider's maximum, when its error named one ("> 200000 maximum"). */
  providerWindowTokens?: number | null;
}

/** Headroom under the learned window: estimates vary from prompt to prompt. */
export const CALIBRATION_MARGIN = 0.9;
/** Below this many estimated tokens no conversation fits; the user must change something. */
const SMALLEST_USEFUL_WINDOW = 64;

export async function calibrateSession(ledger: LedgerContext, sessionId: string, report: CalibrationReport): Promise<Session> {
  for (const field of ['promptTokens', 'estimatedTokens'] as const) {
    const value = report[field];
    if (!Number.isFinite(value) || value <= 0) {
      throw new InvalidInputError(`${field} must be a positive number of tokens; got ${String(value)}.`, field);
    }
  }
  const row = await ledger.store.transaction(async (tx) => {
    const session = await requireSessionRow(tx, sessionId);
    const previous = session.calibration as SessionCalibration | null;
    const current = {
      contextWindow: session.contextWindow,
      reserveTokens: session.reserveTokens,
      keepRecentTokens: session.keepRecentTokens,
    };
    const calibration: SessionCalibration = {
      // The latest report's ratio, not the largest ever: one prompt the estimate misjudged (an
      // image, a wall of code) must not shrink the session for good. A lower ratio that proves
      // wrong is corrected by the next overflow, at the cost of one refused request.
      tokensPerEstimatedToken: Math.max(1, report.promptTokens / report.estimatedTokens),
      providerWindowTokens: smallest(previous?.providerWindowTokens ?? null, report.providerWindowTokens ?? null),
      originalSettings: previous?.originalSettings ?? current,
      promptTokens: report.promptTokens,
      estimatedTokens: report.estimatedTokens,
      calibratedAt: ledger.now(),
    };
    let settings: SessionSettings | null = null;
    let unusable: InvalidInputError | null = null;
    try {
      settings = calibratedSettings(calibration);
    } catch (error) {
      if (!InvalidInputError.isInstance(error)) throw error;
      unusable = error;
    }
    // A window too small to use is recorded all the same (settings untouched), so the next turn
    // is refused before anything is sent rather than failing at the provider again.
    const updated = await tx.updateSessionSettings(sessionId, { ...(settings ?? current), calibration });
    return { updated: updated ?? session, unusable };
  });
  // The settings an append checks a message against changed: its cached session row is stale.
  ledger.heads.forget(sessionId);
  if (row.unusable) throw row.unusable;
  return sessionFromRow(row.updated);
}

/** The user's settings in the estimate's units, within the provider's window, with the margin. */
export function calibratedSettings(calibration: SessionCalibration): SessionSettings {
  const original = calibration.originalSettings;
  const providerWindow = providerWindowOf(calibration);
  const contextWindow = Math.floor((providerWindow / calibration.tokensPerEstimatedToken) * CALIBRATION_MARGIN);
  if (contextWindow < SMALLEST_USEFUL_WINDOW) {
    throw new InvalidInputError(
      `The model reported a window of ${providerWindow} tokens, about ${contextWindow} by this ledger's count ` +
        `(it counted ${calibration.tokensPerEstimatedToken.toFixed(1)} tokens for each one estimated): too small for a conversation. ` +
        'Use a model with a larger window, or a token counter closer to the model’s own.',
      'contextWindow',
    );
  }
  // Reserve and raw keep shrink by the same factor as the window, keeping the user's proportions.
  const factor = contextWindow / original.contextWindow;
  const reserveTokens = Math.min(Math.max(1, Math.floor(original.reserveTokens * factor)), contextWindow - 2);
  const keepRecentTokens = Math.min(Math.floor(original.keepRecentTokens * factor), contextWindow - reserveTokens - 1);
  return { contextWindow, reserveTokens, keepRecentTokens };
}

/** Why a session's recorded calibration leaves no usable window, or null when it is fine. */
export function unusableWindow(session: Session): InvalidInputError | null {
  if (!session.calibration) return null;
  try {
    calibratedSettings(session.calibration);
    return null;
  } catch (error) {
    if (InvalidInputError.isInstance(error)) return error;
    throw error;
  }
}

/**
 * The prompt limit in the provider's own tokens (window less the reply's reserve): what an exact
 * count-tokens answer is compared with. Before any calibration the settings are taken as given.
 */
export function providerPromptLimit(session: Session): number {
  const calibration = session.calibration;
  if (!calibration) return session.settings.contextWindow - session.settings.reserveTokens;
  const window = providerWindowOf(calibration);
  return window - Math.min(calibration.originalSettings.reserveTokens, window - 1);
}

/** The window the provider enforces, in its tokens: the user's, or the smaller one it reported. */
function providerWindowOf(calibration: SessionCalibration): number {
  return Math.min(calibration.originalSettings.contextWindow, calibration.providerWindowTokens ?? Number.POSITIVE_INFINITY);
}

function smallest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
