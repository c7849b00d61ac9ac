// One model call as the middleware sees it: where in the ledger it stands, the context it sends,
// and recording the reply it gets.

import type { AgentsLedger, RetrievalPolicy } from '@agent-ledger/agents-ledger';
import type { ContentBlock } from '@agent-ledger/core';
import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { recentNormalTurns } from './ledger-lines.ts';
import { promptOf, replyContentOf } from './prompt-conversion.ts';

export interface CallState {
  /** The session whose line the call continues. */
  lineSessionId: string;
  /** The line's newest turn when the context was built. */
  headTurnId: string;
  /** The reply's position among the app's messages. */
  replyIndex: number;
  /** The newest user message's words (what recall answers). */
  query: string;
  /** The app's system messages, joined. */
  system: string;
  /** The tool definitions' estimated tokens: they go with the prompt, beside the context. */
  toolTokens: number;
  budgetTokens: number;
  /** What the context sent cost, by the ledger's count. */
  contextTokens: number;
  modelId: string;
}

/** The ledger's context for the call, as the prompt the model receives. */
export async function contextFor(
  ledger: AgentsLedger,
  state: Omit<CallState, 'contextTokens'>,
  retrieval: RetrievalPolicy | false,
): Promise<{ state: CallState; prompt: LanguageModelV3Prompt }> {
  const context = await ledger.buildContext(state.headTurnId, {
    sessionId: state.lineSessionId,
    budgetTokens: state.budgetTokens,
    ...(state.query !== '' && retrieval !== false ? { query: state.query, retrieval } : {}),
    ...(state.system !== '' ? { systemPrompt: state.system } : {}),
  });
  return { state: { ...state, contextTokens: context.tokens }, prompt: promptOf(context.system, context.messages) };
}

export type Reply =
  | { content: LanguageModelV3Content[]; usage: LanguageModelV3Usage; finishReason: LanguageModelV3FinishReason; complete: true }
  | {
      blocks: ContentBlock[];
      usage: LanguageModelV3Usage | null;
      finishReason: LanguageModelV3FinishReason | null;
      complete: boolean;
      failure: unknown;
    };

/** Records the model's reply as the line's next turn; a reply with no text and no call records nothing. */
export async function recordReply(ledger: AgentsLedger, state: CallState, reply: Reply): Promise<void> {
  const blocks = 'content' in reply ? replyContentOf(reply.content) : reply.blocks;
  if (blocks.length === 0) return;
  await ledger.appendTurn(state.lineSessionId, {
    role: 'assistant',
    content: blocks,
    model: state.modelId,
    metadata: {
      aiSdk: { index: state.replyIndex },
      contextTokens: state.contextTokens,
      ...(reply.usage
        ? { usage: { inputTokens: reply.usage.inputTokens.total ?? null, outputTokens: reply.usage.outputTokens.total ?? null } }
        : {}),
      ...(reply.finishReason ? { stopReason: reply.finishReason.unified } : {}),
      ...(reply.complete ? {} : { incomplete: true, failure: describe('failure' in reply ? reply.failure : null) }),
    },
  });
}

/** The newest turn a user wrote in words (not tool results): the question a compaction keeps raw. */
export async function newestQuestionId(ledger: AgentsLedger, headTurnId: string): Promise<string | undefined> {
  const question = (await recentNormalTurns(ledger, headTurnId, 64)).find(
    (turn) => turn.role === 'user' && turn.content.some((block) => block.type === 'text'),
  );
  return question?.id;
}

function describe(failure: unknown): string {
  if (failure instanceof Error) return failure.message;
  return typeof failure === 'string' ? failure : JSON.stringify(failure ?? null);
}
