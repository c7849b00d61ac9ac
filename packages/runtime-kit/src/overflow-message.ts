// Whether a model API's error says the prompt was over the model's window, and the figures it gives.
// Providers say it in words, not codes, so this reads the wording each one uses:
//   Anthropic:          "prompt is too long: 202609 tokens > 200000 maximum"
//   OpenAI-compatible:  "This model's maximum context length is 131072 tokens. However, your messages
//                        resulted in 140000 tokens…" (code context_length_exceeded)
//   others:             "Prompt too long", "exceeds the context window", "request_too_large"

export interface OverflowFigures {
  /** What the provider counted for the prompt, when it says. */
  promptTokens: number | null;
  /** The window (or prompt limit) it compared with, when it says. */
  limitTokens: number | null;
}

const TOO_LONG =
  /prompt (?:is )?too long|too many tokens|request_too_large|context_length_exceeded|maximum context length|exceeds? the (?:model'?s )?(?:context|maximum)|context window (?:is )?exceeded|input is too long/i;
const ANTHROPIC_FIGURES = /(\d+)\s*tokens?\s*>\s*(\d+)/;
const LIMIT_FIRST = /maximum context length is (\d+)\s*tokens?[^\d]*(?:resulted in|requested|you requested) (\d+)/i;
const LIMIT_ONLY = /maximum context length is (\d+)/i;

/** The figures of an overflow, or null when the message is not about one. */
export function overflowFromMessage(message: string): OverflowFigures | null {
  if (!TOO_LONG.test(message)) return null;
  const anthropic = ANTHROPIC_FIGURES.exec(message);
  if (anthropic) return { promptTokens: Number(anthropic[1]), limitTokens: Number(anthropic[2]) };
  const openai = LIMIT_FIRST.exec(message);
  if (openai) return { promptTokens: Number(openai[2]), limitTokens: Number(openai[1]) };
  const limit = LIMIT_ONLY.exec(message);
  return { promptTokens: null, limitTokens: limit ? Number(limit[1]) : null };
}
