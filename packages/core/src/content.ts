// Messages as the Anthropic Messages API shapes them. The ledger stores these blocks verbatim so
// a context can be sent to the API without translation, and so tool_use / tool_result pairs keep
// their ids.

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | TextBlock[];
  is_error?: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export type Role = 'user' | 'assistant';

export interface Message {
  role: Role;
  content: ContentBlock[];
}

/** Accepts a plain string or blocks and returns blocks, the one form the ledger stores. */
export function toContentBlocks(content: string | ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The text a person (or a summarizer, or a search index) would read in these blocks. */
export function contentText(content: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of content) {
    if (block.type === 'text') parts.push(block.text);
    else if (block.type === 'tool_use') parts.push(`[tool_use ${block.name}] ${JSON.stringify(block.input)}`);
    else parts.push(`[tool_result] ${toolResultText(block)}`);
  }
  return parts.join('\n');
}

/** The text a tool_result carries, its parts joined by lines. */
export function toolResultText(block: ToolResultBlock): string {
  if (block.content === undefined) return '';
  if (typeof block.content === 'string') return block.content;
  return block.content.map((part) => part.text).join('\n');
}

/** Ids of the tool calls these blocks make. */
export function toolUseIds(content: readonly ContentBlock[]): string[] {
  return content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
}

/** Ids of the tool calls these blocks answer. */
export function toolResultIds(content: readonly ContentBlock[]): string[] {
  return content.flatMap((block) => (block.type === 'tool_result' ? [block.tool_use_id] : []));
}
