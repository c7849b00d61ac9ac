// Scripted models for the loopback Messages API, chosen by the `model` a request names, so one
// server serves every Anthropic subject of the contract. The note-taking model answers the way the
// summary prompt asks a real one to (the previous summary folded in first, then a short line per
// turn ending with its [id]), but it ignores the word limit, as models do, so the summarizer's
// clipping is what keeps the result within targetTokens. It reads only what the request carries:
// a summarizer that left the previous summary out of its prompt would lose its facts here too.

import { type LoopbackReply, lastUserText, type RecordedRequest } from '@agent-ledger/loopback-api';

export const NOTE_TAKING_MODEL = 'claude-note-taking';
export const REFUSING_MODEL = 'claude-refusing';
export const UNAVAILABLE_MODEL = 'claude-unavailable';

/** Words a note keeps of a turn's first sentence: enough for its identifiers, well short of the turn. */
const WORDS_PER_NOTE = 12;
const TRANSCRIPT_LINE = /^\[([^\s\]]+)[^\]]*\] (.*)$/;

/** The text between `open` and `close` in `text`, or undefined when either tag is missing. */
function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  return start === -1 || end === -1 ? undefined : text.slice(start + open.length, end);
}

/** The summary a diligent but wordy model writes for the summarizer's prompt. */
export function noteTakingSummary(prompt: string): string {
  const lines = (between(prompt, '<previous_summary>\n', '\n</previous_summary>') ?? '').split('\n').filter(Boolean);
  for (const line of (between(prompt, '<transcript>\n', '\n</transcript>') ?? '').split('\n')) {
    const match = line.match(TRANSCRIPT_LINE);
    if (!match) continue;
    const [, id, text = ''] = match;
    const firstSentence = text.split(/(?<=[.!?])\s+/)[0] ?? '';
    lines.push(`${firstSentence.split(/\s+/).slice(0, WORDS_PER_NOTE).join(' ')} [${id}]`);
  }
  return lines.join('\n');
}

export function scriptedModels(request: RecordedRequest): LoopbackReply {
  switch (request.body.model) {
    case NOTE_TAKING_MODEL:
      return { kind: 'text', text: noteTakingSummary(lastUserText(request.body)) };
    case REFUSING_MODEL:
      return { kind: 'text', text: 'I’m sorry, but I can’t summarize this conversation.' };
    default:
      return { kind: 'error', status: 500, errorType: 'api_error', message: 'Internal server error' };
  }
}
