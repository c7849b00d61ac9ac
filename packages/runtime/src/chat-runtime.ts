// A chat runtime on the ledgers. `runTurn` records what arrived (the inbound event, when it came
// from a channel, and the user turn citing it), builds the context (by default the hybrid one:
// retrieval for the incoming message, then the summary or topics and recent turns), calls the model,
// records every reply turn (tool calls and their results included), and hands compaction to the
// scheduler, which runs it off the critical path. When the API says the prompt is too long it
// compacts once (trigger `overflow`) and retries; a second overflow fails with every turn kept.

import { type BuiltContext, providerPromptLimit, unusableWindow } from '@agent-ledger/agents-ledger';
import {
  type CompactionTurn,
  type ContentBlock,
  ContextOverflowError,
  contentText,
  InvalidInputError,
  LedgerError,
  ModelError,
  type NormalTurn,
  type Session,
  type SessionSettings,
  type ToolResultBlock,
  type ToolUseBlock,
} from '@agent-ledger/core';
import {
  contextBudget as budgetOf,
  CompactionScheduler,
  DEFAULT_RUNTIME_RETRIEVAL,
  recoverFromOverflow,
} from '@agent-ledger/runtime-kit';
import type { ChatModel, ModelReply, ModelRequest } from './chat-model.ts';
import { doesNotFit, stillTooLong } from './runtime-errors.ts';
import type { ChatRuntime, ChatRuntimeOptions, RunTurnOptions, RuntimeNotice, TurnResult } from './runtime-types.ts';
import { createToolbox } from './tools.ts';

const DEFAULT_MAX_TOOL_ROUNDS = 8;

export function createChatRuntime(options: ChatRuntimeOptions): ChatRuntime {
  const { ledger } = options;
  // A listener's failure is the listener's: it must not turn a written compaction into a failed one.
  const notify = (notice: RuntimeNotice) => {
    try {
      options.onNotice?.(notice);
    } catch {
      // ignored on purpose
    }
  };
  const toolbox = createToolbox(options, notify);
  const { definitions } = toolbox;
  // Tool definitions go with every prompt the model counts, so they come out of every budget.
  const toolTokens = definitions.length === 0 ? 0 : ledger.tokenCounter.countText(JSON.stringify(definitions));
  const systemTokens = options.systemPrompt ? ledger.tokenCounter.countText(options.systemPrompt) + 1 : 0;
  const scheduler = new CompactionScheduler(ledger, options.compaction ?? {}, notify, toolTokens + systemTokens);
  const retrieval = options.retrieval === undefined || options.retrieval === true ? DEFAULT_RUNTIME_RETRIEVAL : options.retrieval;
  const maxToolRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  /** What the ledger's context may take: the window less the reply's reserve and the tool definitions. */
  const contextBudget = (settings: SessionSettings) => budgetOf(settings, toolTokens);

  async function runTurn(
    sessionId: string,
    input: string | ContentBlock[],
    turnOptions: RunTurnOptions = {},
  ): Promise<TurnResult> {
    const text = typeof input === 'string' ? input : contentText(input);
    if (text.trim() === '' && typeof input === 'string')
      throw new InvalidInputError('The message is empty; type something to send.', 'input');
    await ledger.getSession(sessionId); // SessionNotFoundError before anything is written

    let eventId: string | null = null;
    if (turnOptions.inbound) {
      if (!options.events)
        throw new InvalidInputError('runTurn got an inbound message but the runtime has no events ledger.', 'inbound');
      const { event, duplicate } = await options.events.append({
        channel: turnOptions.inbound.channel,
        externalId: turnOptions.inbound.externalId,
        author: turnOptions.inbound.author ?? null,
        kind: 'message',
        payload: { text },
        ...(turnOptions.inbound.occurredAt !== undefined ? { occurredAt: turnOptions.inbound.occurredAt } : {}),
      });
      eventId = event.id;
      if (duplicate) {
        const recorded = await turnCiting(sessionId, event.id);
        if (recorded) {
          // Redelivered. If the first delivery's answer failed, its user turn still awaits one: answer
          // it now, without recording the message twice; otherwise there is nothing to do.
          const pending = await awaitingAnswer(sessionId);
          if (pending?.id !== recorded.id) return duplicateResult(sessionId, recorded, event.id);
          const result = await answer(sessionId, text, { ...turnOptions, currentTurnIds: [recorded.id] }, []);
          return { ...result, userTurn: recorded, eventId };
        }
      }
    }
    const userTurn = await ledger.appendTurn(sessionId, {
      role: 'user',
      content: input,
      ...(eventId ? { eventIds: [eventId] } : {}),
    });
    const result = await answer(sessionId, text, turnOptions, [userTurn]);
    return { ...result, userTurn, eventId };
  }

  async function respond(sessionId: string, turnOptions: Omit<RunTurnOptions, 'inbound'> = {}): Promise<TurnResult> {
    const head = await awaitingAnswer(sessionId);
    if (!head) {
      throw new InvalidInputError(
        `The newest turn of session ${sessionId} is not a user's (compactions aside); there is nothing to answer.`,
        'sessionId',
      );
    }
    const result = await answer(sessionId, contentText(head.content), { ...turnOptions, currentTurnIds: [head.id] }, []);
    return { ...result, userTurn: head, eventId: head.eventIds[0] ?? null };
  }

  /** The model loop: context → model → record, through tool rounds and one overflow recovery. */
  async function answer(
    sessionId: string,
    incoming: string,
    turnOptions: Omit<RunTurnOptions, 'inbound'> & { currentTurnIds?: string[] },
    appended: NormalTurn[],
  ): Promise<Omit<TurnResult, 'userTurn' | 'eventId'>> {
    const model = turnOptions.model ?? options.model;
    const session = await ledger.getSession(sessionId);
    // A model that already said its window holds no conversation is not asked again.
    const unusable = unusableWindow(session);
    if (unusable) {
      throw new ContextOverflowError(
        `Not sent: ${unusable.message} Nothing was lost; fork the session with a window that fits (\`nexus fork <turnId> --context-window N\`).`,
        null,
        null,
        { cause: unusable },
      );
    }
    let budgetTokens = contextBudget(session.settings);
    const usage = { inputTokens: 0, outputTokens: 0 };
    let overflowCompaction: CompactionTurn | null = null;
    let recoveredOnce = false;
    let modelCalls = 0;
    let toolRounds = 0;
    let context: BuiltContext;
    const questionId = turnOptions.currentTurnIds?.[0] ?? appended[0]?.id;

    for (;;) {
      const current = await ledger.getSession(sessionId);
      const head = current.headTurnId as string;
      try {
        context = await ledger.buildContext(head, {
          budgetTokens,
          query: turnOptions.query ?? incoming,
          retrieval,
          ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
        });
      } catch (error) {
        // The budget holds not even the newest message alone: said in the runtime's terms (window,
        // reserve, tools), not the library's budgetTokens.
        if (
          LedgerError.isInstance(error) &&
          error.code === 'INVALID_INPUT' &&
          (error as InvalidInputError).field === 'budgetTokens'
        )
          throw doesNotFit({ budgetTokens, head, session: current, toolTokens, cause: error as InvalidInputError });
        throw error;
      }
      // Past the last tool round the tools stay defined (the API refuses tool blocks without them),
      // but the model may not call one: it has to answer.
      const toolChoice: 'auto' | 'none' = toolRounds < maxToolRounds ? 'auto' : 'none';
      const request: ModelRequest = {
        system: context.system,
        messages: context.messages,
        tools: definitions,
        toolChoice,
        ...(turnOptions.signal ? { signal: turnOptions.signal } : {}),
      };
      let reply: ModelReply;
      let preflight = false;
      try {
        if (options.countTokensBeforeSending && model.countTokens) {
          preflight = true;
          await checkFits(model, request, current);
          preflight = false;
        }
        modelCalls += 1;
        reply = await model.respond(request);
      } catch (error) {
        if (!(error instanceof ContextOverflowError)) throw error;
        if (recoveredOnce) throw stillTooLong({ modelName: model.name, error, head, session: current });
        recoveredOnce = true;
        // The provider's count is the truth: the session learns its real window from it (so this
        // retry and every later turn fit, and a restart remembers it), and a compaction makes room.
        const recovery = await recoverFromOverflow(
          { ledger, scheduler, notify },
          {
            sessionId,
            overflow: error,
            budgetTokens,
            estimatedTokens: context.tokens + toolTokens,
            overheadTokens: toolTokens,
            preflight,
            ...(questionId ? { keepFromTurnId: questionId } : {}),
          },
        );
        overflowCompaction = recovery.compaction;
        budgetTokens = recovery.budgetTokens;
        continue;
      }
      usage.inputTokens += reply.usage.inputTokens;
      usage.outputTokens += reply.usage.outputTokens;
      if (reply.content.length === 0) {
        throw new ModelError(
          `The model ${reply.model} answered with no content (stop reason ${reply.stopReason}); nothing was recorded for it.`,
          reply.model,
        );
      }
      const replyTurn = await ledger.appendTurn(sessionId, {
        role: 'assistant',
        content: reply.content,
        model: reply.model,
        metadata: { stopReason: reply.stopReason, usage: reply.usage, contextTokens: context.tokens },
      });
      appended.push(replyTurn);

      const calls = reply.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
      // A model that calls tools after it was told not to ends the turn anyway: its calls get an
      // error result (a tool_use may not stay unanswered) and nothing more is asked of it.
      const overLimit = calls.length > 0 && toolChoice === 'none';
      if (overLimit) {
        const refused: ToolResultBlock[] = calls.map((call) => ({
          type: 'tool_result',
          tool_use_id: call.id,
          content: `Not run: this turn used its ${maxToolRounds} tool rounds.`,
          is_error: true,
        }));
        appended.push(await ledger.appendTurn(sessionId, { role: 'user', content: refused }));
      }
      if (calls.length === 0 || overLimit) {
        await scheduler.afterTurn(sessionId);
        return {
          sessionId,
          reply: replyTurn,
          text: contentText(reply.content.filter((block) => block.type === 'text')),
          turns: appended,
          duplicate: false,
          context: {
            tokens: context.tokens,
            budgetTokens,
            compactionTurnId: context.compactionTurnId,
            retrievedTurnIds: context.retrievedTurnIds,
            messages: context.messages.length,
          },
          overflowCompaction,
          usage,
          modelCalls,
        };
      }
      toolRounds += 1;
      const results = await toolbox.run(sessionId, calls, [
        ...(turnOptions.currentTurnIds ?? []),
        ...appended.map((turn) => turn.id),
      ]);
      appended.push(await ledger.appendTurn(sessionId, { role: 'user', content: results }));
    }
  }

  /** Throws the ContextOverflowError the API would, before it is asked, when the exact count is over. */
  async function checkFits(model: ChatModel, request: ModelRequest, session: Session): Promise<void> {
    // The exact count is the provider's: compare it with the limit in the provider's tokens, not
    // with settings a calibration has rescaled into the estimate's.
    const limit = providerPromptLimit(session);
    const exact = await (model.countTokens as NonNullable<ChatModel['countTokens']>)(request);
    if (exact > limit) {
      throw new ContextOverflowError(
        `The prompt counts ${exact} tokens > ${limit} (count-tokens, before sending).`,
        exact,
        limit,
      );
    }
  }

  /** The user turn of this session citing the event, if one was recorded. */
  async function turnCiting(sessionId: string, eventId: string): Promise<NormalTurn | null> {
    for (const turnId of await ledger.turnsCiting(eventId)) {
      const turn = await ledger.getTurn(turnId);
      if (turn.turnType === 'normal' && turn.sessionId === sessionId) return turn;
    }
    return null;
  }

  /**
   * The user turn awaiting an answer: the newest normal turn, past any compaction linked in after
   * it, when a user wrote it. Null when the newest normal turn is the assistant's.
   */
  async function awaitingAnswer(sessionId: string): Promise<NormalTurn | null> {
    let turnId = (await ledger.getSession(sessionId)).headTurnId;
    while (turnId) {
      const turn = await ledger.getTurn(turnId);
      if (turn.turnType === 'normal') return turn.role === 'user' ? turn : null;
      turnId = turn.parentTurnId;
    }
    return null;
  }

  function duplicateResult(sessionId: string, userTurn: NormalTurn, eventId: string): TurnResult {
    return {
      sessionId,
      userTurn,
      reply: null,
      text: '',
      turns: [],
      eventId,
      duplicate: true,
      context: { tokens: 0, budgetTokens: 0, compactionTurnId: null, retrievedTurnIds: [], messages: 0 },
      overflowCompaction: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      modelCalls: 0,
    };
  }

  return {
    runTurn,
    respond,
    compact: (sessionId, compactOptions = {}) => scheduler.compactNow(sessionId, 'manual', compactOptions.instructions),
    contextFor: async (sessionId, contextOptions = {}) => {
      const session = await ledger.getSession(sessionId);
      if (!session.headTurnId) throw new InvalidInputError(`Session ${sessionId} has no turns yet.`, 'sessionId');
      return ledger.buildContext(session.headTurnId, {
        budgetTokens: contextBudget(session.settings),
        ...(contextOptions.query ? { query: contextOptions.query, retrieval } : {}),
        ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
      });
    },
    compactionInFlight: (sessionId) => scheduler.running(sessionId) !== undefined,
    idle: (sessionId) => scheduler.idle(sessionId),
    tools: definitions,
    overheadTokens: toolTokens + systemTokens,
  };
}
