// The tools a turn may call: the recall tool over the whole history (unless turned off) and the
// caller's own. A call never throws into the turn: an unknown tool or a failing one becomes an
// error result the model can read, since a tool_use must always get its tool_result.

import { createRecallToolHandler, RECALL_TOOL_NAME, recallToolDefinition } from '@agent-ledger/agents-ledger';
import type { ToolResultBlock, ToolUseBlock } from '@agent-ledger/core';
import type { EventsLedger } from '@agent-ledger/events-ledger';
import type { ToolDefinition } from './chat-model.ts';
import type { ChatRuntimeOptions, RuntimeNotice, RuntimeTool } from './runtime-types.ts';

export interface Toolbox {
  readonly definitions: ToolDefinition[];
  /** Runs each call in order; `turnIds` are the turns the model already has (its question, earlier rounds). */
  run(sessionId: string, calls: ToolUseBlock[], turnIds: readonly string[]): Promise<ToolResultBlock[]>;
}

export function createToolbox(options: ChatRuntimeOptions, notify: (notice: RuntimeNotice) => void): Toolbox {
  const tools = new Map<string, RuntimeTool>();
  if (options.recallTool !== false) tools.set(RECALL_TOOL_NAME, recallTool(options));
  for (const tool of options.tools ?? []) tools.set(tool.definition.name, tool);
  return {
    definitions: [...tools.values()].map((tool) => tool.definition),
    run: runTools,
  };

  async function runTools(sessionId: string, calls: ToolUseBlock[], turnIds: readonly string[]): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = [];
    for (const call of calls) {
      const tool = tools.get(call.name);
      let outcome: { content: string; isError?: boolean };
      if (!tool)
        outcome = {
          content: `No tool named "${call.name}". Available: ${[...tools.keys()].join(', ') || 'none'}.`,
          isError: true,
        };
      else {
        try {
          outcome = await tool.run(call.input, { sessionId, turnIds });
        } catch (error) {
          outcome = {
            content: `The tool ${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
            isError: true,
          };
        }
      }
      notify({ type: 'tool-call', sessionId, name: call.name, input: call.input, isError: outcome.isError === true });
      results.push({
        type: 'tool_result',
        tool_use_id: call.id,
        content: outcome.content,
        ...(outcome.isError ? { is_error: true } : {}),
      });
    }
    return results;
  }
}

function recallTool(options: ChatRuntimeOptions): RuntimeTool {
  return {
    definition: recallToolDefinition as unknown as ToolDefinition,
    async run(input, { sessionId, turnIds }) {
      // The question and what it arrived as are in front of the model already: not search results.
      const current = await Promise.all(turnIds.map((id) => options.ledger.getTurn(id)));
      const handler = createRecallToolHandler({
        ledger: options.ledger,
        sessionId,
        excludeTurnIds: new Set(turnIds),
        excludeEventIds: new Set(current.flatMap((turn) => (turn.turnType === 'normal' ? turn.eventIds : []))),
        ...(options.events
          ? {
              searchEvents: async (query: string, limit: number) =>
                (await (options.events as EventsLedger).search(query, { limit })).hits.map((hit) => ({
                  eventId: hit.eventId,
                  occurredAt: hit.occurredAt,
                  snippet: hit.snippet,
                  score: hit.score,
                })),
            }
          : {}),
      });
      const { content, isError } = await handler(input);
      return { content, isError };
    },
  };
}
