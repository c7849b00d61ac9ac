// The conversation both examples hold: facts early, a long stretch of other work, then questions
// about the early facts, which by then only the ledger's summary and recall still carry.

export const CONVERSATION: string[] = [
  'We are moving the payments database today, ticket PAY-1874.',
  'The old primary is db-payments-1 on port 5432; the new one sits behind pgbouncer 1.22.1.',
  'The staging cache is redis-quokka-7 on port 6390.',
  ...Array.from(
    { length: 24 },
    (_, index) => `Step ${index + 1} of the runbook: check replica lag, the dashboards, and the alert channel before moving on.`,
  ),
  'Which port is the staging cache on?',
  'And which pgbouncer version runs on the new host?',
];

/** Words a question is about: what the offline model looks for in the context it was given. */
export function contentWords(text: string): string[] {
  const common = new Set(['which', 'what', 'where', 'does', 'the', 'and', 'is', 'on', 'runs', 'run', 'new', 'a', 'of', 'in']);
  return (text.toLowerCase().match(/[a-z0-9.-]+/g) ?? []).filter((word) => word.length > 2 && !common.has(word));
}

/**
 * An offline model's answer: the sentence of its context that shares the most words with the
 * question (the question itself left out). It knows only what it was sent, so it shows what the
 * ledger's context carried.
 */
export function answerFrom(context: string, question: string): string {
  const words = contentWords(question);
  let best = { sentence: '', score: 0 };
  for (const sentence of context.split(/(?<=[.?!])\s+|\n/)) {
    if (sentence.trim() === '' || sentence.includes(question)) continue;
    const lower = sentence.toLowerCase();
    const score = words.filter((word) => lower.includes(word)).length;
    if (score > best.score) best = { sentence: sentence.trim(), score };
  }
  return best.score > 0 ? `From what I was given: ${best.sentence}` : 'Noted.';
}
