// What the model has accepted in each session, as this process saw it: the evidence a "prompt is too
// long" report is weighed against before it may shrink the session (overflow-judgement.ts). In
// memory on purpose: it is what one runtime observed of its model. A restart starts with none and
// believes a first report as before; what was learned is kept in the ledger (the calibration).

import type { SessionCalibration } from '@agent-ledger/core';

/** A prompt the model answered. */
export interface AcceptedPrompt {
  sessionId: string;
  /** This ledger's estimate of the prompt: its context plus what went beside it (tool definitions). */
  estimatedTokens: number;
  /** The provider's count of the same prompt (the reply's usage), when it gave one. */
  providerTokens?: number | null;
}

export interface SessionEvidence {
  /** The largest prompt the model accepted, by this ledger's estimate; 0 before the first. */
  largestAcceptedTokens: number;
  /** Provider tokens per estimated token of the latest accepted prompt the provider counted. */
  acceptedRatio: number | null;
  /** A report was set aside and nothing was accepted since: the next report is believed. */
  doubting: boolean;
  /** The session's calibration as last read or written here; undefined until known. */
  calibration: SessionCalibration | null | undefined;
}

/** Sessions remembered at most; the one used longest ago is forgotten first (a server sees many). */
const MAX_SESSIONS = 1000;

/**
 * The provider's count of an answered prompt is evidence only when it is at least half this ledger's
 * estimate: a count far below it is not of the whole prompt (cached tokens are counted apart, a test
 * double answers a fixed number).
 */
export function credibleCount(prompt: { estimatedTokens: number; providerTokens?: number | null }): number | null {
  const { estimatedTokens, providerTokens } = prompt;
  return providerTokens && estimatedTokens > 0 && providerTokens >= estimatedTokens / 2 ? providerTokens : null;
}

export class PromptEvidence {
  private readonly sessions = new Map<string, SessionEvidence>();

  /** The session's evidence (none yet: an empty record, kept). */
  of(sessionId: string): SessionEvidence {
    let evidence = this.sessions.get(sessionId);
    if (evidence) {
      // Re-inserted: a Map keeps insertion order, so the first key is the one used longest ago.
      this.sessions.delete(sessionId);
    } else {
      evidence = { largestAcceptedTokens: 0, acceptedRatio: null, doubting: false, calibration: undefined };
    }
    this.sessions.set(sessionId, evidence);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    return evidence;
  }

  /** Records a prompt the model answered: it is evidence from now on, and ends any doubt. */
  accepted(prompt: AcceptedPrompt): SessionEvidence {
    const evidence = this.of(prompt.sessionId);
    const { estimatedTokens } = prompt;
    if (!(estimatedTokens > 0)) return evidence;
    evidence.largestAcceptedTokens = Math.max(evidence.largestAcceptedTokens, estimatedTokens);
    const counted = credibleCount(prompt);
    if (counted) evidence.acceptedRatio = counted / estimatedTokens;
    evidence.doubting = false;
    return evidence;
  }
}
