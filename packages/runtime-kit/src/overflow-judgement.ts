// Whether to believe a model API's "prompt is too long: N tokens > M" and whether a prompt it then
// answered refutes what was learned. Pure: the evidence (prompt-evidence.ts) and the figures come in.
//
// A report teaches a window: M over the ratio N gives for this ledger's estimate of the prompt. The
// prompts the model accepted are evidence against it: a report whose window would not hold a prompt
// already answered contradicts them. A small contradiction is ratio noise near the limit; it is
// believed, with the window held at the largest accepted prompt (calibrate-session.ts). A large one
// (the window under half that prompt, or a ratio over twice the one the provider's own counts of
// answered prompts show) is a misreport until repeated: it is set aside once, the prompt is sent
// again as it was, and only a second report with nothing accepted in between is believed.

import { ContextOverflowError, type SessionCalibration } from '@agent-ledger/core';
import type { SessionEvidence } from './prompt-evidence.ts';

/** How far off a report must be from the evidence before it is set aside (and a calibration undone). */
export const DOUBT_FACTOR = 2;

/** Why a report was set aside. */
export interface OverflowDoubt {
  /** What the provider said it counted, and its maximum (null when it named none). */
  promptTokens: number;
  limitTokens: number | null;
  /** The window the report would teach, by this ledger's estimate. */
  impliedWindowTokens: number;
  /** The largest prompt the model accepted in this session, by this ledger's estimate. */
  acceptedTokens: number;
}

export type OverflowVerdict =
  /** Learn from it, the window no smaller than `acceptedTokens` (0: no evidence). */
  | { kind: 'believe'; acceptedTokens: number }
  /** Send the prompt again unchanged; believe the next report if nothing is accepted before it. */
  | { kind: 'doubt'; doubt: OverflowDoubt };

export interface OverflowReport {
  promptTokens: number;
  /** Null when the provider named no maximum (or the limit is this ledger's own, counting first). */
  limitTokens: number | null;
  /** This ledger's estimate of the refused prompt. */
  estimatedTokens: number;
  /** The window the user gave the session, in tokens. */
  userWindowTokens: number;
}

export function judgeOverflow(evidence: SessionEvidence, report: OverflowReport): OverflowVerdict {
  const acceptedTokens = evidence.largestAcceptedTokens;
  if (acceptedTokens === 0 || evidence.doubting) return { kind: 'believe', acceptedTokens };
  const ratio = Math.max(1, report.promptTokens / report.estimatedTokens);
  const window = Math.min(report.userWindowTokens, report.limitTokens ?? Number.POSITIVE_INFINITY);
  const impliedWindowTokens = Math.floor(window / ratio);
  const contradicts = impliedWindowTokens < acceptedTokens;
  const farBelow = impliedWindowTokens * DOUBT_FACTOR < acceptedTokens;
  const ratioOff = evidence.acceptedRatio !== null && ratio > DOUBT_FACTOR * Math.max(1, evidence.acceptedRatio);
  if (contradicts && (farBelow || ratioOff)) {
    const { promptTokens, limitTokens } = report;
    return { kind: 'doubt', doubt: { promptTokens, limitTokens, impliedWindowTokens, acceptedTokens } };
  }
  return { kind: 'believe', acceptedTokens };
}

/**
 * True when a prompt the model answered, counted so by the provider, refutes the calibration: the
 * ratio it shows is under half the learned one, or it counted more than the reported window.
 */
export function refutesCalibration(
  calibration: SessionCalibration | null | undefined,
  accepted: { providerTokens: number; estimatedTokens: number },
): boolean {
  if (!calibration) return false;
  const ratio = Math.max(1, accepted.providerTokens / accepted.estimatedTokens);
  const windowTooSmall = calibration.providerWindowTokens !== null && accepted.providerTokens > calibration.providerWindowTokens;
  return calibration.tokensPerEstimatedToken > DOUBT_FACTOR * ratio || windowTooSmall;
}

/** The error when the one retry after a report was set aside is refused too: what was doubted, and that nothing shrank. */
export function refusedDespiteDoubt(refusal: ContextOverflowError, doubt: OverflowDoubt): ContextOverflowError {
  const said = `${doubt.promptTokens} tokens${doubt.limitTokens === null ? '' : ` > ${doubt.limitTokens}`}`;
  return new ContextOverflowError(
    `The model refused the prompt as too long twice (${refusal.message.replace(/\.$/, '')}). Its first report (${said}) ` +
      `would leave a window of ${doubt.impliedWindowTokens} tokens by this ledger's count, yet it answered a prompt of ` +
      `${doubt.acceptedTokens} tokens in this session, so the report looks wrong (a proxy's miscount?) and the session ` +
      'was neither shrunk nor compacted. Nothing was lost: the message is in the ledger. Send it again: a report ' +
      'repeated with nothing answered in between is believed, and the window learned from it is no smaller ' +
      'than the prompts the model answered.',
    refusal.promptTokens,
    refusal.limitTokens,
    { cause: refusal },
  );
}
