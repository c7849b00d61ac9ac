// Token counting. The ledger needs a fast, deterministic estimate on every append; an exact count
// needs the model's tokenizer or an API call, so it sits behind the same interface.

import type { ContentBlock, Message } from './content.ts';
import { contentText } from './content.ts';

export interface TokenCounter {
  readonly name: string;
  countText(text: string): number;
}

/** Fixed cost the Messages API adds around each message (role and separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

// BPE vocabularies such as cl100k encode almost every common word of up to ~10 letters as one
// token (with its leading space), digits in groups of up to three, and most other symbols one each.
// Measured against cl100k over 16,803 messages of the shared data (`scripts/token-error.ts`, see
// docs/tokens.md): about +5% in total, so it errs on the side of counting a little too much, and a
// budget in estimated tokens stays within the same budget in real tokens.
const LETTERS_PER_TOKEN = 10;
const DIGITS_PER_TOKEN = 3;
const WHITESPACE_PER_TOKEN = 16;
const PIECE = /[A-Za-z]+|[0-9]+|\s+|[^A-Za-z0-9\s]/g;

export const estimateTokenCounter: TokenCounter = {
  name: 'estimate',
  countText(text: string): number {
    let tokens = 0;
    for (const match of text.matchAll(PIECE)) {
      const piece = match[0];
      const first = piece.charCodeAt(0);
      if (piece.trim() === '') {
        // Runs of whitespace: a newline or indentation run is about one token, single spaces merge.
        if (piece.length > 1) tokens += Math.ceil(piece.length / WHITESPACE_PER_TOKEN);
      } else if (first >= 48 && first <= 57) tokens += Math.ceil(piece.length / DIGITS_PER_TOKEN);
      else if ((first >= 65 && first <= 90) || (first >= 97 && first <= 122))
        tokens += Math.ceil(piece.length / LETTERS_PER_TOKEN);
      else tokens += 1;
    }
    return tokens;
  },
};

export function countContentTokens(counter: TokenCounter, content: readonly ContentBlock[]): number {
  return counter.countText(contentText(content)) + MESSAGE_OVERHEAD_TOKENS;
}

export function countMessagesTokens(counter: TokenCounter, messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += countContentTokens(counter, message.content);
  return total;
}
