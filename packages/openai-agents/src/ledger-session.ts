// The agent ledger as an OpenAI Agents SDK Session. The runner asks it for the history before each
// run (getItems) and gives it the run's new items (addItems). Here the history is the ledger's
// context within the session's window (summary, then recent turns; with `inputCallback`, also the
// turns recalled for the new message) however long the conversation gets, every item is kept, and
// compaction runs in the background. Nothing is deleted: popItem forks at the turn before the item,
// clearSession starts a new session, an OpenAI compaction becomes a compaction turn.

import type { AgentsLedger, BuiltContext, CreateSessionInput, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import { contentText, type NormalTurn, type Turn } from '@agent-ledger/core';
import {
  type CompactionNotice,
  type CompactionPolicy,
  CompactionScheduler,
  contextBudget,
  DEFAULT_RUNTIME_RETRIEVAL,
  PromptEvidence,
  promptAccepted,
  recoverFromOverflow,
  refusedDespiteDoubt,
  type WindowLearnedNotice,
} from '@agent-ledger/runtime-kit';
import type { AgentInputItem, Session } from '@openai/agents-core';
import { itemsOfContext, turnsOfItems } from './item-conversion.ts';
import { asContextOverflow } from './overflow-error.ts';

export interface LedgerSessionOptions {
  ledger: AgentsLedger;
  /** The ledger session the conversation is recorded in (LedgerSession.create makes one). */
  sessionId: string;
  /** Turns recalled for the new message by `inputCallback` (default: half the context, at most 4,000 tokens). */
  retrieval?: RetrievalPolicy | boolean;
  compaction?: CompactionPolicy;
  /** What every request carries beside the history (instructions, tool definitions), in tokens. */
  overheadTokens?: number;
  onNotice?: (notice: CompactionNotice | WindowLearnedNotice) => void;
}

/** Where the items of a turn are kept, to give back exactly what was added. */
interface ItemsMetadata {
  openaiAgents?: { items?: AgentInputItem[] };
}

export class LedgerSession implements Session {
  private current: string;
  private readonly ledger: AgentsLedger;
  private readonly scheduler: CompactionScheduler;
  /** What the model answered, per session: what an overflow report is weighed against. */
  private readonly evidence = new PromptEvidence();
  private readonly retrieval: RetrievalPolicy | false;
  private readonly overheadTokens: number;
  private readonly notify: (notice: CompactionNotice | WindowLearnedNotice) => void;
  /** What the last context sent cost, by the ledger's count (an overflow is measured against it). */
  private lastContextTokens = 0;
  /** A budget an overflow without figures cut the context to, for this object's life. */
  private budgetCap = Number.POSITIVE_INFINITY;
  /** The message the next run's history recalls turns for (recallFor), until its items are added. */
  private pendingQuery = '';

  /** A new ledger session for a conversation, and the Session on it. */
  static async create(
    options: Omit<LedgerSessionOptions, 'sessionId'> & { session?: CreateSessionInput },
  ): Promise<LedgerSession> {
    const session = await options.ledger.createSession(options.session ?? {});
    return new LedgerSession({ ...options, sessionId: session.id });
  }

  constructor(options: LedgerSessionOptions) {
    this.ledger = options.ledger;
    this.current = options.sessionId;
    this.overheadTokens = options.overheadTokens ?? 0;
    this.retrieval =
      options.retrieval === undefined || options.retrieval === true ? DEFAULT_RUNTIME_RETRIEVAL : options.retrieval;
    this.notify = (notice) => {
      try {
        options.onNotice?.(notice);
      } catch {
        // A listener's failure is the listener's.
      }
    };
    this.scheduler = new CompactionScheduler(options.ledger, options.compaction ?? {}, this.notify, this.overheadTokens);
  }

  /** The ledger session the conversation is on now (a pop or a clear moves it to a new one). */
  async getSessionId(): Promise<string> {
    return this.current;
  }

  /** The ledger's context as items: the summary (or the provider's compaction), then recent items; the newest `limit` with one. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const items = await this.contextItems(this.pendingQuery);
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    this.pendingQuery = '';
    // A provider's compacted history (ending in a `compaction` item, as OpenAIResponsesCompactionSession
    // writes it after a clear) is recorded as a compaction turn, so later contexts start from its items.
    const compactionEnd = items.findLastIndex((item) => 'type' in item && item.type === 'compaction') + 1;
    if (compactionEnd > 0) {
      await this.appendItems(items.slice(0, compactionEnd));
      await this.recordProviderCompaction(items.slice(0, compactionEnd));
    }
    await this.appendItems(items.slice(compactionEnd));
    await this.scheduler.afterTurn(this.current);
  }

  /** Takes the newest item off the conversation: the session moves to a fork without it; the ledger keeps it. */
  async popItem(): Promise<AgentInputItem | undefined> {
    const newest = await this.newestNormalTurn();
    if (!newest) return undefined;
    const items = itemsOf(newest);
    const popped = items.at(-1);
    const rest = items.slice(0, -1);
    const label = `${(await this.ledger.getSession(this.current)).label ?? this.current} · item popped`;
    const next = newest.parentTurnId
      ? (await this.ledger.forkFrom(newest.parentTurnId, { label })).session
      : await this.ledger.createSession({ label, settings: (await this.ledger.getSession(this.current)).settings });
    if (rest.length > 0) {
      const [turn] = turnsOfItems(rest);
      if (turn)
        await this.ledger.appendTurn(next.id, {
          role: turn.role,
          content: turn.content,
          metadata: { openaiAgents: { items: rest } },
        });
    }
    this.current = next.id;
    return popped;
  }

  /** Starts the conversation over in a new ledger session; the old one stays, searchable. */
  async clearSession(): Promise<void> {
    const old = await this.ledger.getSession(this.current);
    const fresh = await this.ledger.createSession({ label: `${old.label ?? old.id} · cleared`, settings: old.settings });
    this.current = fresh.id;
  }

  /**
   * The provider's compacted history in place of the conversation (what newer versions of
   * OpenAIResponsesCompactionSession call): recorded as a compaction turn over everything so far, the
   * items on it, so the history stays and later contexts start from the provider's items.
   */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    if (!(await this.newestNormalTurn())) await this.appendItems(items);
    await this.recordProviderCompaction(items);
  }

  private async appendItems(items: AgentInputItem[]): Promise<void> {
    const turns = turnsOfItems(items);
    // A run tried again after an overflow gives its input again (a streamed run stores it first):
    // the same user items as the newest turn's are that input, not a second message.
    const newest = await this.newestNormalTurn();
    if (
      newest?.role === 'user' &&
      turns[0]?.role === 'user' &&
      JSON.stringify(itemsOf(newest)) === JSON.stringify(turns[0].items)
    )
      turns.shift();
    if (turns.length === 0) return;
    await this.ledger.appendTurns(
      this.current,
      turns.map((turn) => ({ role: turn.role, content: turn.content, metadata: { openaiAgents: { items: turn.items } } })),
    );
  }

  /** A compaction turn over the whole line, standing for the provider's compacted items. */
  private async recordProviderCompaction(items: AgentInputItem[]): Promise<void> {
    const newest = await this.newestNormalTurn();
    if (!newest) return;
    const summary = turnsOfItems(items)
      .map((turn) => contentText(turn.content))
      .join('\n')
      .trim();
    await this.ledger.recordCompaction(this.current, {
      summary,
      summarizedThroughTurnId: newest.id,
      firstKeptTurnId: null,
      summarizer: 'openai-responses-compact',
      metadata: { openaiAgents: { items } },
    });
  }

  /**
   * Runs `attempt` (a run on this session); when the provider says the prompt is too long, learns the
   * window from its count, compacts, and runs it once more. Any other failure is thrown as it is.
   */
  async withOverflowRecovery<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await this.answered(attempt);
    } catch (error) {
      const overflow = asContextOverflow(error);
      if (!overflow) throw error;
      const { settings } = await this.ledger.getSession(this.current);
      // A streamed run stored its input already: that message stays raw, to be answered.
      const newest = await this.newestNormalTurn();
      const recovery = await recoverFromOverflow(this.overflowDeps(), {
        sessionId: this.current,
        overflow,
        budgetTokens: Math.min(this.budgetCap, contextBudget(settings, this.overheadTokens)),
        estimatedTokens: this.lastContextTokens + this.overheadTokens,
        overheadTokens: this.overheadTokens,
        ...(newest?.role === 'user' ? { keepFromTurnId: newest.id } : {}),
      });
      // A report set aside (it contradicts what the model answered) changes nothing: the run goes again as it was.
      if (!recovery.learned && !recovery.doubt) this.budgetCap = recovery.budgetTokens;
      try {
        return await this.answered(attempt);
      } catch (again) {
        const refused = recovery.doubt ? asContextOverflow(again) : null;
        throw refused && recovery.doubt ? refusedDespiteDoubt(refused, recovery.doubt) : again;
      }
    }
  }

  /** Runs `attempt`; its success means the model answered the context it was given: evidence for later reports. */
  private async answered<T>(attempt: () => Promise<T>): Promise<T> {
    const result = await attempt();
    await promptAccepted(this.overflowDeps(), {
      sessionId: this.current,
      estimatedTokens: this.lastContextTokens + this.overheadTokens,
    });
    return result;
  }

  private overflowDeps() {
    return { ledger: this.ledger, scheduler: this.scheduler, evidence: this.evidence, notify: this.notify };
  }

  /**
   * Makes the history of the next run (the runner reads it with getItems as the run starts) also
   * carry the turns the ledger recalls for this message, beside the summary and the recent turns:
   * `run(agent, text, { session: session.recallFor(text) })`. Until the run's items are added.
   * (The runner's `sessionInputCallback` cannot do this: it stores whatever the callback adds.)
   */
  recallFor(message: string): this {
    this.pendingQuery = message;
    return this;
  }

  /** Resolves when no background compaction is running. */
  idle(): Promise<void> {
    return this.scheduler.idle();
  }

  private async contextItems(query: string): Promise<AgentInputItem[]> {
    const { headTurnId, settings } = await this.ledger.getSession(this.current);
    if (!headTurnId) return [];
    const context = await this.ledger.buildContext(headTurnId, {
      sessionId: this.current,
      budgetTokens: Math.min(this.budgetCap, contextBudget(settings, this.overheadTokens)),
      ...(query.trim() !== '' && this.retrieval !== false ? { query, retrieval: this.retrieval } : {}),
    });
    this.lastContextTokens = context.tokens;
    const provided = await this.providerCompaction(context);
    if (!provided) return itemsOfContext(context.system, context.messages);
    // With no raw turn after the compaction the ledger says the conversation continues; the
    // provider's items say it already.
    return context.includedTurnIds.length === 0 ? provided : [...provided, ...itemsOfContext('', context.messages)];
  }

  /** The items of the provider's compaction the context starts from, if it starts from one. */
  private async providerCompaction(context: BuiltContext): Promise<AgentInputItem[] | null> {
    if (!context.compactionTurnId) return null;
    const turn = await this.ledger.getTurn(context.compactionTurnId);
    return (turn.metadata as ItemsMetadata | null)?.openaiAgents?.items ?? null;
  }

  private async newestNormalTurn(): Promise<NormalTurn | null> {
    let turnId = (await this.ledger.getSession(this.current)).headTurnId;
    while (turnId) {
      const turn: Turn = await this.ledger.getTurn(turnId);
      if (turn.turnType === 'normal') return turn;
      turnId = turn.parentTurnId;
    }
    return null;
  }
}

/** The items a turn was added from, or the ones its blocks stand for (a turn written by something else). */
function itemsOf(turn: NormalTurn): AgentInputItem[] {
  const kept = (turn.metadata as ItemsMetadata | null)?.openaiAgents?.items;
  return kept && kept.length > 0 ? kept : itemsOfContext('', [{ role: turn.role, content: turn.content }]);
}
