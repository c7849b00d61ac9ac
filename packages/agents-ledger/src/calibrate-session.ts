// Learning a session's real window from the model API. When the provider refuses a prompt as too
// long, its count and limit are the truth and the ledger's estimate is not: the session's settings
// are rescaled into the estimate's units (window, reserve and raw keep alike), recorded with what
// was reported, so every later budget, threshold and compaction fits what the provider enforces,
// across restarts and in forks. Each calibration starts again from the user's own settings, so
// reports never compound. What the model accepted bounds what a refusal can teach: the window is
// never learned smaller than the largest prompt the model answered, and a prompt it answered with
// a count that refutes the calibration (the ratio far lower, or more tokens than the reported
// window) redoes the calibration from that prompt. Whether a report is believed at all is the
// caller's judgement (runtime-kit's overflow recovery); this module keeps the arithmetic.

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
  /**
   * The largest prompt the model accepted in this session, by the ledger's estimate: a refusal never
   * teaches a window smaller than it, so a misreport cannot shrink the session below what worked.
   */
  acceptedTokens?: number;
  /**
   * `refused` (default): the provider refused this prompt as too long. `accepted`: it answered the
   * prompt and counted it so; the calibration is redone from it (the ratio it shows, and a window at
   * least as large as it), and dropped when it then says no more than the user's settings. A
   * session with no calibration is left as it is.
   */
  outcome?: 'refused' | 'accepted';
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
    const now = ledger.now();
    if (report.outcome === 'accepted') {
      if (!previous) return { updated: session, unusable: null };
      const calibration = relearnedFrom(previous, report, now);
      const settings = calibration ? calibratedSettings(calibration) : previous.originalSettings;
      return { updated: (await tx.updateSessionSettings(sessionId, { ...settings, calibration })) ?? session, unusable: null };
    }
    const calibration = learnedFrom(previous?.originalSettings ?? current, previous, report, now);
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

/** The calibration a refusal teaches, within what the model has accepted. */
function learnedFrom(
  originalSettings: SessionSettings,
  previous: SessionCalibration | null,
  report: CalibrationReport,
  now: number,
): SessionCalibration {
  const accepted = report.acceptedTokens ?? 0;
  // A maximum below a prompt the model answered is wrong (the provider counts at least as many
  // tokens as this ledger estimates): it is not taken, nor kept from an earlier report.
  const credible = (window: number | null | undefined) => (window != null && window >= accepted ? window : null);
  const providerWindowTokens = smallest(credible(previous?.providerWindowTokens), credible(report.providerWindowTokens));
  const window = Math.min(originalSettings.contextWindow, providerWindowTokens ?? Number.POSITIVE_INFINITY);
  // The latest report's ratio, not the largest ever: one prompt the estimate misjudged (an image, a
  // wall of code) must not shrink the session for good. A lower ratio that proves wrong is corrected
  // by the next overflow, at the cost of one refused request. It is capped where the window would
  // drop below the largest prompt the model accepted.
  const reported = report.promptTokens / report.estimatedTokens;
  const ceiling = accepted > 0 ? window / accepted : Number.POSITIVE_INFINITY;
  return {
    tokensPerEstimatedToken: Math.max(1, Math.min(reported, ceiling)),
    providerWindowTokens,
    originalSettings,
    promptTokens: report.promptTokens,
    estimatedTokens: report.estimatedTokens,
    calibratedAt: now,
  };
}

/**
 * The calibration redone from a prompt the model answered: its ratio, and no reported window
 * smaller than what it counted. Null when what is left says nothing beyond the user's settings.
 */
function relearnedFrom(previous: SessionCalibration, report: CalibrationReport, now: number): SessionCalibration | null {
  const tokensPerEstimatedToken = Math.max(1, report.promptTokens / report.estimatedTokens);
  const reportedWindow = previous.providerWindowTokens;
  const providerWindowTokens = reportedWindow !== null && report.promptTokens > reportedWindow ? null : reportedWindow;
  const saysMore =
    tokensPerEstimatedToken > 1 ||
    (providerWindowTokens !== null && providerWindowTokens < previous.originalSettings.contextWindow);
  if (!saysMore) return null;
  return {
    tokensPerEstimatedToken,
    providerWindowTokens,
    originalSettings: previous.originalSettings,
    promptTokens: report.promptTokens,
    estimatedTokens: report.estimatedTokens,
    calibratedAt: now,
  };
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
