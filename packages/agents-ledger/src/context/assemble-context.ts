// Pure assembly of what is sent to a model: a system prompt (base prompt + compaction summary) and
// the raw turns, as Anthropic Messages API input, within a token budget. The ledger decides which
// turns are candidates; this module decides what fits and makes it valid to send.

import {
  countContentTokens,
  countMessagesTokens,
  InvalidInputError,
  type Message,
  type NormalTurn,
  type TokenCounter,
  toolResultIds,
} from '@agent-ledger/core';
import { pairToolCalls } from './pair-tool-calls.ts';
import { groupIntoUnits, type TurnUnit } from './turn-units.ts';

export interface AssembleContextInput {
  systemPrompt?: string;
  /** The compaction summary, already rendered for the system prompt, or null. */
  summaryBlock: string | null;
  /** Candidate raw turns, oldest first. */
  turns: readonly NormalTurn[];
  budgetTokens?: number;
  /** Room kept for the newest turns when the system prompt and summary are fitted (default 0). */
  reserveRecentTokens?: number;
  tokenCounter: TokenCounter;
}

export interface AssembledContext {
  system: string;
  messages: Message[];
  tokens: number;
  /** The raw turns the messages came from, oldest first. */
  includedTurnIds: string[];
  /**
   * Candidate turns left out to stay within the budget: the oldest ones, except when the budget
   * holds nothing but the smallest valid context (the newest user turn alone, see smallestContext):
   * then the assistant turns after it are left out too.
   */
  droppedTurnIds: string[];
  /** True when the summary itself had to be cut to fit the budget. */
  summaryTruncated: boolean;
}

/** Sent as the first user message when the kept turns start with the assistant speaking. */
export const CONTINUATION_MARKER = '[The conversation continues from the summary above.]';
const TRUNCATION_MARKER = '[…earlier summary lines omitted to fit the budget]';

export function assembleContext(input: AssembleContextInput): AssembledContext {
  const { tokenCounter } = input;
  const budget = input.budgetTokens ?? Number.POSITIVE_INFINITY;
  const reserve = Math.min(budget, Math.max(0, input.reserveRecentTokens ?? 0));
  const { system, truncated: summaryTruncated } = fitSystem(
    input.systemPrompt,
    input.summaryBlock,
    budget - reserve,
    tokenCounter,
  );

  const units = groupIntoUnits(input.turns);
  // Keep the newest units that fit; an estimate first, then the exact count of the final shape.
  let firstKept = units.length;
  let estimate = tokenCounter.countText(system) + countContentTokens(tokenCounter, [{ type: 'text', text: CONTINUATION_MARKER }]);
  while (firstKept > 0) {
    const unit = units[firstKept - 1];
    if (!unit || estimate + unit.tokens > budget) break;
    estimate += unit.tokens;
    firstKept -= 1;
  }
  for (; firstKept < units.length; firstKept += 1) {
    const kept = units.slice(firstKept).flatMap((unit) => unit.turns);
    const messages = toMessages(kept, input.summaryBlock !== null);
    const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, messages);
    if (tokens <= budget) return assembled(input, { system, messages, tokens, kept, summaryTruncated });
  }
  return smallestContext(input, units, budget);
}

/**
 * The context when no unit fits beside the system text, or there are none: the smallest request
 * the Messages API accepts, which needs one user message. That is the newest user turn alone (with
 * the assistant turn whose calls it answers when it carries tool results: a result may not stand
 * without its call), or, when the raw turns hold no user turn (a compaction that kept none), the
 * continuation marker; the system prompt and summary get the room it leaves.
 *
 * When even that is over the budget, this throws rather than return an empty `messages` (which
 * the API refuses, so the failure would come later and further from its cause) or a context over
 * the budget (which the caller set as a hard limit, a model's window, say): the error names the
 * budget that would do, so the caller can raise it or send a shorter message. Falling back to the
 * newest user turn first, instead of throwing at once, keeps a budget that can hold the question
 * useful: the model answers it without the history rather than not at all.
 */
function smallestContext(input: AssembleContextInput, units: readonly TurnUnit[], budget: number): AssembledContext {
  const { tokenCounter } = input;
  const { kept, messages, tokens: needed } = smallestMessages(units, input.summaryBlock !== null, tokenCounter);
  if (needed > budget) throw new InvalidInputError(tooSmallMessage(budget, needed, kept), 'budgetTokens');
  const { system, truncated } = fitSystem(input.systemPrompt, input.summaryBlock, budget - needed, tokenCounter);
  const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, messages);
  return assembled(input, { system, messages, tokens, kept, summaryTruncated: truncated });
}

/**
 * The messages of the smallest valid context for these units (turns, oldest first), the turns they
 * hold and their tokens with an empty system: what a budget must hold at least.
 */
export function smallestMessages(
  units: readonly TurnUnit[],
  hasSummary: boolean,
  tokenCounter: TokenCounter,
): { kept: NormalTurn[]; messages: Message[]; tokens: number } {
  const kept = newestUserTurn(units);
  const messages = kept.length > 0 ? toMessages(kept, hasSummary) : [continuation(hasSummary)];
  return { kept, messages, tokens: tokenCounter.countText('') + countMessagesTokens(tokenCounter, messages) };
}

/** The newest user turn, after the assistant turn whose tool calls it answers, if any; [] for none. */
function newestUserTurn(units: readonly TurnUnit[]): NormalTurn[] {
  for (let index = units.length - 1; index >= 0; index -= 1) {
    const turns = units[index]?.turns ?? [];
    const last = turns.findLastIndex((turn) => turn.role === 'user');
    if (last >= 0) return turns.slice(0, last + 1);
  }
  return [];
}

function tooSmallMessage(budget: number, needed: number, kept: readonly NormalTurn[]): string {
  const newest = kept.at(-1);
  const smallest =
    newest === undefined
      ? 'a user message saying the conversation continues (no user turn is among the raw turns)'
      : toolResultIds(newest.content).length > 0
        ? `the newest user turn ${newest.id} with the tool calls it answers (${kept[0]?.id})`
        : `the newest user turn ${newest.id} alone`;
  return (
    `budgetTokens ${budget} is too small for any valid context: the smallest one, ${smallest}, needs ${needed} tokens ` +
    `(a request needs at least one user message; the system prompt and summary give way first). ` +
    `Give budgetTokens of at least ${needed}.`
  );
}

function assembled(
  input: AssembleContextInput,
  parts: { system: string; messages: Message[]; tokens: number; kept: readonly NormalTurn[]; summaryTruncated: boolean },
): AssembledContext {
  const keptIds = new Set(parts.kept.map((turn) => turn.id));
  return {
    system: parts.system,
    messages: parts.messages,
    tokens: parts.tokens,
    includedTurnIds: parts.kept.map((turn) => turn.id),
    droppedTurnIds: input.turns.filter((turn) => !keptIds.has(turn.id)).map((turn) => turn.id),
    summaryTruncated: parts.summaryTruncated,
  };
}

/**
 * Turns become alternating user/assistant messages, as the API requires: consecutive turns of one
 * role merge, the first message is a user's, and every tool call is paired with its result right
 * after it (pair-tool-calls.ts: a call never answered gets an `is_error` result, an orphan result
 * becomes plain text), so whatever was stored, the API accepts what is sent.
 */
export function toMessages(turns: readonly NormalTurn[], hasSummary: boolean): Message[] {
  const messages: Message[] = [];
  for (const turn of turns) {
    const last = messages.at(-1);
    if (last && last.role === turn.role) last.content = [...last.content, ...turn.content];
    else messages.push({ role: turn.role, content: [...turn.content] });
  }
  if (messages[0]?.role === 'assistant') messages.unshift(continuation(hasSummary));
  return pairToolCalls(messages);
}

/** The user message a context opens with when no user turn of its own comes first. */
function continuation(hasSummary: boolean): Message {
  const text = hasSummary ? CONTINUATION_MARKER : '[The conversation continues.]';
  return { role: 'user', content: [{ type: 'text', text }] };
}

function joinSystem(systemPrompt: string | undefined, summaryBlock: string | null): string {
  return [systemPrompt, summaryBlock].filter((part): part is string => Boolean(part)).join('\n\n');
}

/**
 * The system prompt within `budget`: the summary loses its oldest lines first (the newest carry
 * the most recent state) but keeps its header; only if that is not enough is the whole cut.
 */
function fitSystem(
  systemPrompt: string | undefined,
  summaryBlock: string | null,
  budget: number,
  tokenCounter: TokenCounter,
): { system: string; truncated: boolean } {
  const whole = joinSystem(systemPrompt, summaryBlock);
  if (tokenCounter.countText(whole) <= budget) return { system: whole, truncated: false };
  if (summaryBlock === null) return { system: keepTailWithin(whole, budget, tokenCounter), truncated: false };
  // The first line is the header that explains the [id] citations: it stays while any line does.
  const [header = '', ...lines] = (summaryBlock ?? '').split('\n');
  while (lines.length > 0) {
    const candidate = joinSystem(systemPrompt, [header, TRUNCATION_MARKER, ...lines].join('\n'));
    if (tokenCounter.countText(candidate) <= budget) return { system: candidate, truncated: true };
    lines.shift();
  }
  // Not even the header and one line fit: a fragment of a summary line would mislead more than it
  // helps, so the summary goes; the base prompt stays, cut to its end if it alone is over budget.
  return { system: keepTailWithin(systemPrompt ?? '', budget, tokenCounter), truncated: summaryBlock !== null };
}

/** The longest tail of `text` that fits `budget` tokens (binary search on characters). */
function keepTailWithin(text: string, budget: number, tokenCounter: TokenCounter): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (tokenCounter.countText(text.slice(middle)) <= budget) high = middle;
    else low = middle + 1;
  }
  // Counts are nearly but not strictly monotone in the cut position: step on until it fits.
  while (low < text.length && tokenCounter.countText(text.slice(low)) > budget) low += 1;
  return text.slice(low);
}
