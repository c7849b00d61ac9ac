// Between the AI SDK's prompt (LanguageModelV3Prompt) and the ledger's turns (Messages API blocks).
// A user or assistant message is one turn; a `tool` message (the results of one step's calls) is one
// user turn of tool_result blocks, as the Messages API has it. What the ledger does not keep: reasoning
// (the provider's, not the conversation's), file bytes (a file is recorded by name and type) and tool
// approval responses. Back the other way, a context becomes a prompt the model can take as it is.

import type { ContentBlock, Message, Role, TextBlock, ToolResultBlock } from '@agent-ledger/core';
import type {
  LanguageModelV3Content,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';

export interface TurnContent {
  role: Role;
  content: ContentBlock[];
}

/** The turn a prompt message becomes; null for a system message (not part of the conversation). */
export function turnContentOf(message: LanguageModelV3Message): TurnContent | null {
  switch (message.role) {
    case 'system':
      return null;
    case 'user':
      return { role: 'user', content: message.content.map((part) => (part.type === 'text' ? text(part.text) : fileNote(part))) };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content.flatMap((part): ContentBlock[] => {
          if (part.type === 'text') return part.text === '' ? [] : [text(part.text)];
          if (part.type === 'tool-call')
            return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} }];
          if (part.type === 'file') return [fileNote(part)];
          return []; // reasoning; results of provider-executed tools
        }),
      };
    case 'tool':
      return {
        role: 'user',
        content: message.content.flatMap((part): ContentBlock[] =>
          part.type === 'tool-result' ? [toolResultBlock(part.toolCallId, part.output)] : [],
        ),
      };
  }
}

/** What a model's reply (doGenerate's content) is in the ledger: its text and its tool calls. */
export function replyContentOf(content: readonly LanguageModelV3Content[]): ContentBlock[] {
  return content.flatMap((part): ContentBlock[] => {
    if (part.type === 'text') return part.text === '' ? [] : [text(part.text)];
    if (part.type === 'tool-call' && !part.providerExecuted)
      return [{ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: parseInput(part.input) }];
    return [];
  });
}

/** A tool call's input as the reply carries it (JSON text), as the prompt will (the parsed value). */
export function parseInput(input: string): unknown {
  try {
    return input.trim() === '' ? {} : JSON.parse(input);
  } catch {
    return input;
  }
}

/** A context (system text and Messages API messages) as the prompt the model receives. */
export function promptOf(system: string, messages: readonly Message[]): LanguageModelV3Prompt {
  const toolNames = new Map<string, string>();
  for (const message of messages)
    for (const block of message.content) if (block.type === 'tool_use') toolNames.set(block.id, block.name);
  const prompt: LanguageModelV3Prompt = system === '' ? [] : [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'assistant') {
      prompt.push({
        role: 'assistant',
        content: message.content.flatMap((block): Array<LanguageModelV3TextPart | LanguageModelV3ToolCallPart> => {
          if (block.type === 'text') return [{ type: 'text', text: block.text }];
          if (block.type === 'tool_use')
            return [{ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: block.input }];
          return [];
        }),
      });
      continue;
    }
    const results = message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
    const texts = message.content.filter((block): block is TextBlock => block.type === 'text');
    if (results.length > 0) {
      prompt.push({
        role: 'tool',
        content: results.map((block) => ({
          type: 'tool-result' as const,
          toolCallId: block.tool_use_id,
          toolName: toolNames.get(block.tool_use_id) ?? 'unknown',
          output: outputOf(block),
        })),
      });
    }
    if (texts.length > 0)
      prompt.push({ role: 'user', content: texts.map((block) => ({ type: 'text' as const, text: block.text })) });
  }
  return prompt;
}

function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

/** A file the ledger keeps by name and type: its bytes belong to the app's storage, not the transcript. */
function fileNote(part: { filename?: string; mediaType: string; data: unknown }): TextBlock {
  const where = part.data instanceof URL ? ` ${part.data.href}` : '';
  return text(`[file${part.filename ? ` ${part.filename}` : ''} (${part.mediaType})${where}]`);
}

function toolResultBlock(toolCallId: string, output: LanguageModelV3ToolResultOutput): ToolResultBlock {
  switch (output.type) {
    case 'text':
      return { type: 'tool_result', tool_use_id: toolCallId, content: output.value };
    case 'json':
      return { type: 'tool_result', tool_use_id: toolCallId, content: JSON.stringify(output.value) };
    case 'error-text':
      return { type: 'tool_result', tool_use_id: toolCallId, content: output.value, is_error: true };
    case 'error-json':
      return { type: 'tool_result', tool_use_id: toolCallId, content: JSON.stringify(output.value), is_error: true };
    case 'execution-denied':
      return {
        type: 'tool_result',
        tool_use_id: toolCallId,
        content: `Execution denied${output.reason ? `: ${output.reason}` : ''}.`,
        is_error: true,
      };
    case 'content':
      return {
        type: 'tool_result',
        tool_use_id: toolCallId,
        content: output.value
          .map((part) => (part.type === 'text' ? part.text : `[${part.type}${'mediaType' in part ? ` ${part.mediaType}` : ''}]`))
          .join('\n'),
      };
  }
}

function outputOf(block: ToolResultBlock): LanguageModelV3ToolResultOutput {
  const value = typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => part.text).join('\n');
  return block.is_error ? { type: 'error-text', value } : { type: 'text', value };
}
