// What import does with a message's content, decided once for the importer and for every check made
// before an import starts (the evaluation's), so a file that passes the check imports.
//
// An empty message is skipped, not refused and not padded: real transcripts hold them (a reply
// the model never wrote, a paste that failed), they carry nothing to remember, and the ledger never
// stores an empty text block (the Messages API refuses one). Empty means a string of whitespace
// only, or blocks whose text blocks are all whitespace and that hold no tool call or result. Inside
// a message that says something, whitespace-only text blocks are dropped. Everything else must pass
// the ledger's own content rules (validate-input.ts), which the check applies unchanged.

import type { ContentBlock } from '@agent-ledger/core';
import { validateBlocksForRole, validateContent } from '../validate-input.ts';

/**
 * The blocks a message is imported as, or null when it is empty and import skips it. Throws the
 * ledger's InvalidInputError (naming `content[i]`) for content appendTurn would refuse.
 */
export function importableContent(content: unknown, role?: 'user' | 'assistant'): ContentBlock[] | null {
  const blocks = blocksToImport(content);
  // A tool call in a user message (or a result in an assistant's) is refused by append: so here.
  if (blocks !== null && role !== undefined) validateBlocksForRole(role, blocks);
  return blocks;
}

function blocksToImport(content: unknown): ContentBlock[] | null {
  if (typeof content === 'string') return content.trim() === '' ? null : validateContent(content);
  if (!Array.isArray(content)) return validateContent(content);
  const kept = content.filter((block) => !isBlankText(block));
  if (kept.length === 0) return null;
  return validateContent(kept);
}

function isBlankText(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const record = block as Record<string, unknown>;
  return record.type === 'text' && typeof record.text === 'string' && record.text.trim() === '';
}
