// Pure assembly of what is sent to a model: a system prompt (base prompt + compaction summary) and
// the raw turns, as Anthropic Messages API input, within a token budget. The ledger decides which
// turns are candidates; this module decides what fits and makes it valid to send.

import { countContentTokens, countMessagesTokens, type Message, type NormalTurn, type TokenCounter } from '@agent-ledger/core';
import { pairToolCalls } from './pair-tool-calls.ts';
import { groupIntoUnits } from './turn-units.ts';

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
  /** Candidate turns left out to stay within the budget (always the oldest ones). */
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
  for (;;) {
    const kept = units.slice(firstKept).flatMap((unit) => unit.turns);
    const messages = toMessages(kept, input.summaryBlock !== null);
    const tokens = tokenCounter.countText(system) + countMessagesTokens(tokenCounter, messages);
    // With no unit kept, `tokens` is the system's alone, which fitSystem already made fit.
    if (tokens <= budget || firstKept >= units.length) {
      const keptIds = new Set(kept.map((turn) => turn.id));
      return {
        system,
        messages,
        tokens,
        includedTurnIds: kept.map((turn) => turn.id),
        droppedTurnIds: input.turns.filter((turn) => !keptIds.has(turn.id)).map((turn) => turn.id),
        summaryTruncated,
      };
    }
    firstKept += 1;
  }
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
  if (messages[0]?.role === 'assistant') {
    const text = hasSummary ? CONTINUATION_MARKER : '[The conversation continues.]';
    messages.unshift({ role: 'user', content: [{ type: 'text', text }] });
  }
  return pairToolCalls(messages);
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
