// Between the Agents SDK's items (AgentInputItem) and the ledger's turns (Messages API blocks).
// Consecutive items of one side become one turn, as the Messages API has them: an assistant's text
// and its function calls one assistant turn, the calls' results (and a user's message) one user
// turn, so a call and its result stay a pair the ledger keeps together. The items themselves are kept
// on the turn (metadata), so popItem gives back exactly what was added. Back the other way, a context
// becomes items a model can take: the summary as a system message, calls and results paired.

import type { ContentBlock, Message, Role, ToolResultBlock } from '@agent-ledger/core';
import type { AgentInputItem } from '@openai/agents-core';

export interface ItemTurn {
  role: Role;
  content: ContentBlock[];
  items: AgentInputItem[];
}

/** Groups items into turns by side; each keeps the items it came from. */
export function turnsOfItems(items: readonly AgentInputItem[]): ItemTurn[] {
  const turns: ItemTurn[] = [];
  for (const item of items) {
    const role = sideOf(item);
    const last = turns.at(-1);
    const target = last && last.role === role ? last : { role, content: [], items: [] };
    if (target !== last) turns.push(target);
    target.items.push(item);
    target.content.push(...blocksOf(item));
  }
  return turns;
}

/** Which side of the conversation an item is on: what the model said and did, or what came back to it. */
function sideOf(item: AgentInputItem): Role {
  if ('role' in item && (item.role === 'user' || item.role === 'system')) return 'user';
  if ('type' in item && typeof item.type === 'string' && item.type.endsWith('_result')) return 'user';
  return 'assistant';
}

function blocksOf(item: AgentInputItem): ContentBlock[] {
  if ('role' in item && item.role === 'user') {
    if (typeof item.content === 'string') return [{ type: 'text', text: item.content }];
    return item.content.map((part) => ({
      type: 'text' as const,
      text: part.type === 'input_text' ? part.text : `[${part.type}]`,
    }));
  }
  if ('role' in item && item.role === 'system') return [{ type: 'text', text: `[system] ${item.content}` }];
  if ('role' in item && item.role === 'assistant') {
    return item.content.map((part) => ({
      type: 'text' as const,
      text: part.type === 'output_text' ? part.text : part.type === 'refusal' ? `[refusal] ${part.refusal}` : `[${part.type}]`,
    }));
  }
  if (item.type === 'function_call')
    return [{ type: 'tool_use', id: item.callId, name: item.name, input: parseArguments(item.arguments) }];
  if (item.type === 'function_call_result')
    return [{ type: 'tool_result', tool_use_id: item.callId, content: outputText(item.output) }];
  // Reasoning is the provider's, not the conversation's: kept on the turn, not in its text.
  if (item.type === 'reasoning') return [];
  return [{ type: 'text', text: `[${item.type ?? 'item'}]` }];
}

function parseArguments(value: string): unknown {
  try {
    return value.trim() === '' ? {} : JSON.parse(value);
  } catch {
    return value;
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null && (output as { type?: unknown }).type === 'text')
    return String((output as { text?: unknown }).text ?? '');
  return JSON.stringify(output);
}

/** A context (system text and Messages API messages) as the items a run starts from. */
export function itemsOfContext(system: string, messages: readonly Message[]): AgentInputItem[] {
  const names = new Map<string, string>();
  for (const message of messages)
    for (const block of message.content) if (block.type === 'tool_use') names.set(block.id, block.name);
  const items: AgentInputItem[] = system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const texts = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
      if (texts.length > 0)
        items.push({ role: 'assistant', status: 'completed', content: texts.map((text) => ({ type: 'output_text', text })) });
      for (const block of message.content)
        if (block.type === 'tool_use')
          items.push({
            type: 'function_call',
            callId: block.id,
            name: block.name,
            arguments: JSON.stringify(block.input ?? {}),
            status: 'completed',
          });
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'tool_result') items.push(resultItem(block, names.get(block.tool_use_id) ?? 'unknown'));
      else if (block.type === 'text') items.push({ role: 'user', content: block.text });
    }
  }
  return items;
}

function resultItem(block: ToolResultBlock, name: string): AgentInputItem {
  const text = typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => part.text).join('\n');
  return { type: 'function_call_result', callId: block.tool_use_id, name, status: 'completed', output: { type: 'text', text } };
}
