// Records the prompt's messages the ledger does not hold yet, once each, and says which line the
// call continues. Two ways an app can talk to the model:
//   history 'app' (default): the app resends the whole conversation on every call, as useChat and
//     most AI SDK apps do. Each recorded turn carries its position in the app's messages, so the
//     newest turn that is still the app's message at that position is where the new ones start;
//     a later message that differs (an edit, a regenerated reply) forks the line there.
//   history 'ledger': the app sends only what is new and lets the ledger supply the rest; the
//     messages that repeat the line's newest turns (a tool loop resends its step's messages) are
//     known, the rest are new.

import type { AgentsLedger, AppendTurnInput } from '@agent-ledger/agents-ledger';
import { InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { FORK_LABEL_MARK, type LedgerLines, recentNormalTurns } from './ledger-lines.ts';
import { messageKey } from './message-key.ts';
import { type TurnContent, turnContentOf } from './prompt-conversion.ts';

export type HistoryMode = 'app' | 'ledger';

export interface RecordedPrompt {
  /** The session whose line this call continues: the one passed, or the fork an edit made. */
  lineSessionId: string;
  /** The newest turn of that line once the prompt is recorded. */
  headTurnId: string;
  appended: NormalTurn[];
  /** The position the reply will have among the app's messages. */
  replyIndex: number;
  /** The words of the newest user message: what the context recalls turns for. */
  query: string;
}

/** How far back a call looks for the last message it shares with the line. */
const LOOK_BACK = 64;

interface Positioned extends TurnContent {
  index: number;
  key: string;
}

/**
 * The prompt's user and assistant messages, each converted and keyed only when asked for: an app
 * that resends a 10,000-message conversation has one or two of them compared and the new ones
 * recorded, not all of them hashed on every call.
 */
class PromptMessages {
  private readonly source: LanguageModelV3Prompt;
  private readonly converted = new Map<number, Positioned>();

  constructor(prompt: LanguageModelV3Prompt) {
    this.source = prompt.filter((message) => message.role !== 'system');
  }

  get length(): number {
    return this.source.length;
  }

  at(index: number): Positioned | undefined {
    const known = this.converted.get(index);
    if (known) return known;
    const message = this.source[index];
    const content = message ? turnContentOf(message) : null;
    if (!content) return undefined;
    const positioned = { ...content, index, key: messageKey(content.role, content.content) };
    this.converted.set(index, positioned);
    return positioned;
  }

  from(start: number): Positioned[] {
    return Array.from({ length: Math.max(0, this.length - start) }, (_, offset) => this.at(start + offset) as Positioned);
  }

  /** The words of the newest user message that has any: what the context recalls turns for. */
  newestUserWords(): string {
    for (let index = this.length - 1; index >= 0; index -= 1) {
      const message = this.at(index) as Positioned;
      if (message.role !== 'user') continue;
      const words = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      if (words.trim() !== '') return words;
    }
    return '';
  }
}

export async function recordPrompt(
  ledger: AgentsLedger,
  lines: LedgerLines,
  request: { sessionId: string; prompt: LanguageModelV3Prompt; history: HistoryMode },
): Promise<RecordedPrompt> {
  const messages = new PromptMessages(request.prompt);
  if (messages.length === 0) throw new InvalidInputError('The prompt has no user or assistant message to answer.', 'prompt');
  const place =
    request.history === 'ledger'
      ? await afterOverlap(ledger, lines.remembered(request.sessionId), messages)
      : await afterSharedMessage(ledger, lines, request.sessionId, messages);
  const fresh = messages.from(place.from);
  const inputs: AppendTurnInput[] = fresh.map((message) => ({
    role: message.role,
    content: message.content,
    metadata: { aiSdk: { index: message.index } },
  }));
  const appended = inputs.length > 0 ? await ledger.appendTurns(place.lineSessionId, inputs) : [];
  const headTurnId = appended.at(-1)?.id ?? place.headTurnId;
  if (!headTurnId) throw new InvalidInputError('The prompt has no message to record.', 'prompt');
  return {
    lineSessionId: place.lineSessionId,
    headTurnId,
    appended,
    replyIndex: messages.length,
    query: messages.newestUserWords(),
  };
}

interface Place {
  lineSessionId: string;
  headTurnId: string | null;
  /** The first of the prompt's messages the line does not hold. */
  from: number;
}

/** History 'app': after the newest line turn that is still the app's message at its position. */
async function afterSharedMessage(
  ledger: AgentsLedger,
  lines: LedgerLines,
  sessionId: string,
  messages: PromptMessages,
): Promise<Place> {
  // Warm: the line this process wrote to last. Cold (a new process): the session's forks made here,
  // newest first, then the session itself, so a conversation goes on in its newest fork.
  const tried = new Set<string>();
  for await (const candidate of linesToTry(lines, sessionId)) {
    if (tried.has(candidate)) continue;
    tried.add(candidate);
    const place = await placeOnLine(ledger, candidate, messages);
    if (!place) continue;
    if (place.forkAt) {
      const source = await ledger.getSession(candidate);
      const fork = await ledger.forkFrom(place.forkAt, { label: `${source.label ?? candidate} · ${FORK_LABEL_MARK}` });
      lines.remember(sessionId, fork.session.id);
      return { lineSessionId: fork.session.id, headTurnId: place.forkAt, from: place.from };
    }
    lines.remember(sessionId, candidate);
    return { lineSessionId: candidate, headTurnId: place.headTurnId, from: place.from };
  }
  throw new InvalidInputError(
    `The prompt does not continue session ${sessionId}: none of its last ${LOOK_BACK} turns is the prompt's message at the same ` +
      'position. Pass the session this conversation was recorded in, or create a new one for it.',
    'sessionId',
  );
}

/** The lines a call may continue, most likely first; the session's tree is read only when needed. */
async function* linesToTry(lines: LedgerLines, sessionId: string): AsyncGenerator<string> {
  const remembered = lines.remembered(sessionId);
  if (lines.knows(sessionId)) yield remembered;
  yield* await lines.candidates(sessionId);
}

async function placeOnLine(
  ledger: AgentsLedger,
  lineSessionId: string,
  messages: PromptMessages,
): Promise<(Place & { forkAt?: string }) | null> {
  const { headTurnId } = await ledger.getSession(lineSessionId);
  if (!headTurnId) return { lineSessionId, headTurnId: null, from: 0 };
  for (const turn of await recentNormalTurns(ledger, headTurnId, LOOK_BACK)) {
    const index = (turn.metadata?.aiSdk as { index?: unknown } | undefined)?.index;
    if (typeof index !== 'number' || index >= messages.length) continue;
    if (messages.at(index)?.key !== messageKey(turn.role, turn.content)) continue;
    const isHead = (await newestNormalTurnId(ledger, headTurnId)) === turn.id;
    return isHead
      ? { lineSessionId, headTurnId, from: index + 1 }
      : { lineSessionId, headTurnId: turn.id, from: index + 1, forkAt: turn.id };
  }
  return null;
}

async function newestNormalTurnId(ledger: AgentsLedger, headTurnId: string): Promise<string | undefined> {
  return (await recentNormalTurns(ledger, headTurnId, 1))[0]?.id;
}

/** History 'ledger': the longest run of the prompt's first messages that repeats the line's newest turns is known. */
async function afterOverlap(ledger: AgentsLedger, lineSessionId: string, messages: PromptMessages): Promise<Place> {
  const { headTurnId } = await ledger.getSession(lineSessionId);
  const newestFirst = await recentNormalTurns(ledger, headTurnId, Math.min(messages.length, LOOK_BACK));
  const tail = newestFirst.reverse().map((turn) => messageKey(turn.role, turn.content));
  for (let shared = Math.min(tail.length, messages.length); shared > 0; shared -= 1) {
    const repeats = Array.from({ length: shared }, (_, offset) => messages.at(offset) as Positioned).every(
      (message, offset) => message.key === tail[tail.length - shared + offset],
    );
    if (repeats) return { lineSessionId, headTurnId, from: shared };
  }
  return { lineSessionId, headTurnId, from: 0 };
}
