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

// Words of up to ~4 letters are one token in BPE vocabularies, longer words a token per ~4
// letters; digits group in threes; every other symbol is about a token. This tracks cl100k within
// a few percent on English chat and code (see docs/tokens.md and scripts/token-error.ts).
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
        if (piece.length > 1) tokens += Math.ceil(piece.length / 8);
      } else if (first >= 48 && first <= 57) tokens += Math.ceil(piece.length / 3);
      else if ((first >= 65 && first <= 90) || (first >= 97 && first <= 122)) tokens += Math.ceil(piece.length / 4.5);
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
