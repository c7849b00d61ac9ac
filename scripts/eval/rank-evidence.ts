// Where a ranking of a conversation's turns puts a question's evidence, by turn and by session, as
// LongMemEval reports retrieval (recall_any@k: ANY evidence session or turn among the first k;
// recall_all@k: every one). Sessions are ranked by their best turn. Pure: rankers.ts produces the
// rankings, aggregate-peers.ts turns these outcomes into rows.

/** The k of session recall (LongMemEval and LoCoMo papers report @5 and @10). */
export const SESSION_KS = [5, 10] as const;
/** The k of turn recall. */
export const TURN_KS = [5, 10, 20] as const;

/**
 * Each message's session, from the data's own ids: LoCoMo's `D3:12` and LongMemEval's
 * `answer_530960c1:4` name the session before the last colon. A conversation with any id lacking
 * one has no sessions (null): devops and the fixtures are one stream, not sessions.
 */
export function sessionsOf(messageIds: readonly string[]): Map<string, string> | null {
  const sessions = new Map<string, string>();
  for (const id of messageIds) {
    const colon = id.lastIndexOf(':');
    if (colon <= 0) return null;
    sessions.set(id, id.slice(0, colon));
  }
  return sessions.size > 0 ? sessions : null;
}

export interface RankInput {
  /** Message ids, best first, as the ranker put them (no repeats). */
  ranked: readonly string[];
  /** The question's evidence message ids. */
  evidence: readonly string[];
  /** Message → session; null when the conversation has no sessions. */
  sessions: ReadonlyMap<string, string> | null;
  /** Tokens of each message (the ledger's estimate). */
  messageTokens: ReadonlyMap<string, number>;
}

/** Where the evidence landed; ranks are 1-based, null when it is not ranked at all. */
export interface RankOutcome {
  /** Distinct evidence sessions; 0 when the conversation has no sessions or the question no evidence. */
  evidenceSessions: number;
  /** Rank of the best-ranked evidence session (recall_any@k is sessionFirstHit ≤ k). */
  sessionFirstHit: number | null;
  /** Rank by which every evidence session is in (recall_all@k is sessionAllHit ≤ k). */
  sessionAllHit: number | null;
  evidenceTurns: number;
  turnFirstHit: number | null;
  turnAllHit: number | null;
  /** Tokens of the first k ranked sessions, whole (what sending them would cost), by k. */
  sessionTokens: Record<string, number>;
  /** Tokens of the first k ranked turns, by k. */
  turnTokens: Record<string, number>;
}

export function rankEvidence(input: RankInput): RankOutcome {
  const { ranked, evidence, sessions, messageTokens } = input;
  const evidenceTurns = [...new Set(evidence)];
  const turnRank = new Map(ranked.map((id, index) => [id, index + 1]));
  const sessionOrder = sessions ? rankSessions(ranked, sessions) : [];
  const sessionRank = new Map(sessionOrder.map((id, index) => [id, index + 1]));
  const evidenceSessions = sessions ? [...new Set(evidenceTurns.map((id) => sessions.get(id) ?? id))] : [];
  const sessionLength = sessions ? tokensBySession(sessions, messageTokens) : new Map<string, number>();
  return {
    evidenceSessions: evidenceSessions.length,
    sessionFirstHit: firstHit(evidenceSessions, sessionRank),
    sessionAllHit: allHit(evidenceSessions, sessionRank),
    evidenceTurns: evidenceTurns.length,
    turnFirstHit: firstHit(evidenceTurns, turnRank),
    turnAllHit: allHit(evidenceTurns, turnRank),
    sessionTokens: tokensOfFirst(SESSION_KS, sessionOrder, (id) => sessionLength.get(id) ?? 0),
    turnTokens: tokensOfFirst(TURN_KS, ranked, (id) => messageTokens.get(id) ?? 0),
  };
}

/** Sessions in the order of their best-ranked turn. */
export function rankSessions(ranked: readonly string[], sessions: ReadonlyMap<string, string>): string[] {
  const order = new Set<string>();
  for (const id of ranked) {
    const session = sessions.get(id);
    if (session !== undefined) order.add(session);
  }
  return [...order];
}

function firstHit(wanted: readonly string[], rank: ReadonlyMap<string, number>): number | null {
  const ranks = wanted.map((id) => rank.get(id)).filter((value): value is number => value !== undefined);
  return ranks.length === 0 ? null : Math.min(...ranks);
}

function allHit(wanted: readonly string[], rank: ReadonlyMap<string, number>): number | null {
  if (wanted.length === 0) return null;
  const ranks = wanted.map((id) => rank.get(id));
  return ranks.some((value) => value === undefined) ? null : Math.max(...(ranks as number[]));
}

function tokensBySession(sessions: ReadonlyMap<string, string>, messageTokens: ReadonlyMap<string, number>): Map<string, number> {
  const totals = new Map<string, number>();
  for (const [id, session] of sessions) totals.set(session, (totals.get(session) ?? 0) + (messageTokens.get(id) ?? 0));
  return totals;
}

function tokensOfFirst(
  ks: readonly number[],
  order: readonly string[],
  tokensOf: (id: string) => number,
): Record<string, number> {
  return Object.fromEntries(ks.map((k) => [String(k), order.slice(0, k).reduce((total, id) => total + tokensOf(id), 0)]));
}
