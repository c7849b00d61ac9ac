// The prompt the Anthropic summarizer sends. It asks for what a compaction needs and a model tends
// to lose: identifiers copied verbatim, the previous summary folded in (not appended), the user's
// instructions followed, and every line traceable to the turns it came from.

import type { SummarizeInput } from '../summarizer.ts';

export const SUMMARY_SYSTEM_PROMPT = [
  'You compact the older part of a conversation between a user and an AI assistant. Your summary replaces those',
  "messages in the assistant's context, so anything you leave out is gone from its working memory.",
  '',
  'Rules:',
  '- Copy identifiers exactly as written: file paths, URLs, versions, numbers, dates, amounts, names, ids, commands,',
  '  configuration keys and error messages. Never round, paraphrase or "fix" them.',
  '- Keep decisions and their reasons, facts the user stated about themselves or their systems, open questions,',
  '  commitments and what is still to do. When a value changed, keep the newer value and say it replaced the older.',
  '- When a previous summary is given, fold it in: one summary that covers both, newest facts winning, not two parts.',
  '- End each line with the ids of the turns it comes from in brackets, e.g. [t_12] or [t_12, t_15].',
  '- Write plain lines, no preamble ("Here is the summary"), no commentary about the task.',
  '- Use only what the transcript and previous summary say; add nothing.',
].join('\n');

/** The user message: previous summary, the transcript with ids and times, instructions, the size limit. */
export function summaryUserMessage(input: SummarizeInput, wordLimit: number): string {
  const parts: string[] = [];
  if (input.previousSummary?.trim()) {
    parts.push(`<previous_summary>\n${input.previousSummary.trim()}\n</previous_summary>`);
  }
  const lines = input.turns.map((turn) => {
    const when =
      turn.timestamp === undefined ? '' : ` · ${new Date(turn.timestamp).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    return `[${turn.id}${when} · ${turn.role}] ${turn.text}`;
  });
  parts.push(`<transcript>\n${lines.join('\n')}\n</transcript>`);
  if (input.instructions?.trim()) {
    parts.push(
      `<instructions>\n${input.instructions.trim()}\n</instructions>\nFollow these instructions where they do not conflict with the rules.`,
    );
  }
  parts.push(
    `Write the ${input.previousSummary?.trim() ? 'updated ' : ''}summary now, at most about ${wordLimit} words. ` +
      'Start directly with the first line of the summary.',
  );
  return parts.join('\n\n');
}
