// When and how a runtime on the ledger compacts. Threshold compactions run in the background: the turn that
// crossed the threshold is answered first, and later turns are built from the previous compaction
// plus raw turns within budget until the new compaction turn lands (the ledger links it in after
// whatever was appended meanwhile). At most one compaction per session is in flight, and a session
// is not compacted again until its context has grown by `minGrowthTokens` since the last
// compaction or failed attempt, so a context that stays large after compacting cannot make every
// turn compact (thrash).

import { type AgentsLedger, type CompactOptions, defaultSummaryTokens } from '@agent-ledger/agents-ledger';
import {
  type CompactionTrigger,
  type CompactionTurn,
  HeadConflictError,
  LedgerError,
  NothingToCompactError,
} from '@agent-ledger/core';

export type CompactionNotice =
  | { type: 'compaction-started'; sessionId: string; trigger: CompactionTrigger; contextTokens: number }
  | { type: 'compaction-finished'; sessionId: string; compaction: CompactionTurn; savedTokens: number }
  | { type: 'compaction-failed'; sessionId: string; trigger: CompactionTrigger; error: Error }
  | { type: 'compaction-skipped'; sessionId: string; reason: string };

export interface CompactionPolicy {
  /** Compact when the ledger says the context is over its limit (default true). */
  auto?: boolean;
  /** Run threshold compactions off the turn's critical path (default true). */
  background?: boolean;
  /** Growth needed since the last compaction (or failed attempt) before another one (default 5% of the window). */
  minGrowthTokens?: number;
  /** Standing instructions for every automatic compaction's summary. */
  instructions?: string;
}

export class CompactionScheduler {
  private readonly inFlight = new Map<string, Promise<CompactionTurn | null>>();
  /** Context tokens when a compaction last failed or was deferred, per session (in memory: a restart retries). */
  private readonly failedAt = new Map<string, number>();

  /**
   * `overheadTokens`: what every prompt carries beside the ledger's context (tool definitions, the
   * system prompt). The ledger does not know them, so the threshold and the summary size are
   * computed here on the window they leave; otherwise turns would drop out of the budget before a
   * compaction is due.
   */
  constructor(
    private readonly ledger: AgentsLedger,
    private readonly policy: CompactionPolicy,
    private readonly notify: (notice: CompactionNotice) => void,
    private readonly overheadTokens = 0,
  ) {}

  /** The compaction running for this session, if any; it resolves to null when it failed. */
  running(sessionId: string): Promise<CompactionTurn | null> | undefined {
    return this.inFlight.get(sessionId);
  }

  /** After a turn: start a threshold compaction when one is due (in the background by default). */
  async afterTurn(sessionId: string): Promise<void> {
    if (this.policy.auto === false || this.inFlight.has(sessionId)) return;
    const reason = await this.notDueBecause(sessionId);
    if (reason) {
      if (reason !== 'under the limit') this.notify({ type: 'compaction-skipped', sessionId, reason });
      return;
    }
    const running = this.start(sessionId, 'threshold', this.policy.instructions);
    if (this.policy.background === false) await running;
  }

  /**
   * Compacts now and waits (manual `/compact`, overflow recovery). Rejects with the ledger's error
   * (NothingToCompactError, CompactionWouldNotShrinkError, SummarizerError) so the caller can say why.
   */
  async compactNow(
    sessionId: string,
    trigger: CompactionTrigger,
    instructions?: string,
    keepFromTurnId?: string,
  ): Promise<CompactionTurn> {
    await this.inFlight.get(sessionId);
    const contextTokens = (await this.ledger.contextUsage(sessionId)).contextTokens;
    try {
      return await this.compactAndAnnounce(sessionId, {
        ...(await this.compactOptions(sessionId, trigger, instructions)),
        ...(keepFromTurnId ? { keepFromTurnId } : {}),
      });
    } catch (error) {
      this.failedAt.set(sessionId, contextTokens);
      throw error;
    }
  }

  /** Resolves when no compaction is running for the session (or for any session). */
  async idle(sessionId?: string): Promise<void> {
    const waiting = sessionId ? [this.inFlight.get(sessionId)] : [...this.inFlight.values()];
    await Promise.all(waiting);
  }

  private start(sessionId: string, trigger: CompactionTrigger, instructions?: string): Promise<CompactionTurn | null> {
    const running = (async () => {
      const contextTokens = (await this.ledger.contextUsage(sessionId)).contextTokens;
      this.notify({ type: 'compaction-started', sessionId, trigger, contextTokens });
      try {
        return await this.compactAndAnnounce(sessionId, await this.compactOptions(sessionId, trigger, instructions));
      } catch (error) {
        if (NothingToCompactError.isInstance(error) || HeadConflictError.isInstance(error)) {
          this.notify({ type: 'compaction-skipped', sessionId, reason: error.message });
        } else {
          this.failedAt.set(sessionId, contextTokens);
          this.notify({ type: 'compaction-failed', sessionId, trigger, error: asError(error) });
        }
        return null;
      }
    })().finally(() => this.inFlight.delete(sessionId));
    this.inFlight.set(sessionId, running);
    return running;
  }

  /** Writes the compaction; a success clears the failed-attempt mark and is announced with what it saved. */
  private async compactAndAnnounce(sessionId: string, options: CompactOptions): Promise<CompactionTurn> {
    const compaction = await this.ledger.compact(sessionId, options);
    this.failedAt.delete(sessionId);
    this.notify({
      type: 'compaction-finished',
      sessionId,
      compaction,
      savedTokens: compaction.tokensBefore - compaction.tokensAfter,
    });
    return compaction;
  }

  /** The summary sized for the window the overhead leaves (docs/compaction.md: half the room). */
  private async compactOptions(sessionId: string, trigger: CompactionTrigger, instructions?: string): Promise<CompactOptions> {
    const { settings } = await this.ledger.getSession(sessionId);
    const summaryTokens = defaultSummaryTokens({
      ...settings,
      contextWindow: Math.max(0, settings.contextWindow - this.overheadTokens),
    });
    // Standing instructions apply to every compaction the runtime makes, overflow ones included.
    const standing = instructions ?? this.policy.instructions;
    return { trigger, summaryTokens, ...(standing ? { instructions: standing } : {}) };
  }

  /** Null when a compaction is due; otherwise why not. */
  private async notDueBecause(sessionId: string): Promise<string | null> {
    const usage = await this.ledger.contextUsage(sessionId);
    if (usage.contextTokens + this.overheadTokens <= usage.limit) return 'under the limit';
    const session = await this.ledger.getSession(sessionId);
    const minGrowth = this.policy.minGrowthTokens ?? Math.floor(session.settings.contextWindow * 0.05);
    const latest = session.headTurnId ? await this.ledger.findLatestCompaction(session.headTurnId) : null;
    const baseline = Math.max(latest?.tokensAfter ?? 0, this.failedAt.get(sessionId) ?? 0);
    const grown = usage.contextTokens - baseline;
    if (baseline > 0 && grown < minGrowth) {
      return `the context grew ${grown} tokens since the last compaction or attempt; the next one waits for ${minGrowth}`;
    }
    return null;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error || LedgerError.isInstance(error) ? (error as Error) : new Error(String(error));
}
