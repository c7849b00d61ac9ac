// Text the ledger gives back to a coding agent (nexus's hooks: recall from before a compaction, a
// note about the ledger) is written into that agent's transcript like anything else it was shown.
// It is wrapped in one marker, so an import recognises it and never stores it as the user's words
// (it would otherwise come back as a "turn" the next time it is recalled).

export const INJECTED_OPEN = '<nexus-recall>';
export const INJECTED_CLOSE = '</nexus-recall>';
const INJECTED = /<nexus-recall>[\s\S]*?(?:<\/nexus-recall>|$)/g;

/** `text` wrapped so an import recognises it. */
export function markInjected(text: string): string {
  return `${INJECTED_OPEN}\n${text}\n${INJECTED_CLOSE}`;
}

/** `text` without anything the ledger injected (an unclosed marker runs to the end of the text). */
export function withoutInjected(text: string): string {
  if (!text.includes(INJECTED_OPEN)) return text;
  return text.replace(INJECTED, '').trim();
}
