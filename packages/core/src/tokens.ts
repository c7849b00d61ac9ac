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

/**
 * The text read as pieces: runs of ASCII letters, runs of digits, runs of whitespace (as `\s` has it),
 * and every other UTF-16 unit alone. A scan by character codes rather than a regular expression:
 * every context counts tens of thousands of tokens, and a match object per piece is most of the cost.
 */
export const estimateTokenCounter: TokenCounter = {
  name: 'estimate',
  countText(text: string): number {
    let tokens = 0;
    let index = 0;
    const length = text.length;
    while (index < length) {
      const code = text.charCodeAt(index);
      const kind = kindOf(code);
      if (kind === OTHER) {
        tokens += 1;
        index += 1;
        continue;
      }
      let end = index + 1;
      while (end < length && kindOf(text.charCodeAt(end)) === kind) end += 1;
      const run = end - index;
      // Runs of whitespace: a newline or indentation run is about one token, single spaces merge.
      if (kind === SPACE) tokens += run > 1 ? Math.ceil(run / WHITESPACE_PER_TOKEN) : 0;
      else tokens += Math.ceil(run / (kind === DIGIT ? DIGITS_PER_TOKEN : LETTERS_PER_TOKEN));
      index = end;
    }
    return tokens;
  },
};

const LETTER = 1;
const DIGIT = 2;
const SPACE = 3;
const OTHER = 4;

function kindOf(code: number): number {
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) return LETTER;
  if (code >= 48 && code <= 57) return DIGIT;
  return isWhitespace(code) ? SPACE : OTHER;
}

/** Exactly the characters `\s` matches in a JavaScript regular expression. */
function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 5760 ||
    (code >= 8192 && code <= 8202) ||
    code === 8232 ||
    code === 8233 ||
    code === 8239 ||
    code === 8287 ||
    code === 12288 ||
    code === 65279
  );
}

export function countContentTokens(counter: TokenCounter, content: readonly ContentBlock[]): number {
  return counter.countText(contentText(content)) + MESSAGE_OVERHEAD_TOKENS;
}

export function countMessagesTokens(counter: TokenCounter, messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += countContentTokens(counter, message.content);
  return total;
}
