// A session as an Anthropic Messages request body: the whole history (every raw turn, with each
// compaction's summary as a user message where it was written, as Claude Code and Codex show one),
// or the context the ledger would send at a turn (summary in `system`, recent turns in `messages`).

import type { AgentsLedger } from '@agent-ledger/agents-ledger';
import type { ContentBlock, Message } from '@agent-ledger/core';

export interface AnthropicExportOptions {
  /** Export the context `buildContext` gives at this turn instead of the full history. */
  contextAt?: string;
  budgetTokens?: number;
}

export async function exportAnthropic(
  ledger: AgentsLedger,
  sessionId: string,
  options: AnthropicExportOptions = {},
): Promise<string> {
  const session = await ledger.getSession(sessionId);
  if (options.contextAt !== undefined || session.headTurnId === null) {
    const at = options.contextAt ?? session.headTurnId;
    if (at === null || at === undefined) return `${JSON.stringify({ messages: [] }, null, 2)}\n`;
    const context = await ledger.buildContext(at, {
      sessionId,
      ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
    });
    return `${JSON.stringify({ ...(context.system ? { system: context.system } : {}), messages: context.messages }, null, 2)}\n`;
  }
  const messages: Message[] = [];
  // The API wants alternating roles: consecutive turns of one role become one message.
  const add = (role: Message['role'], content: ContentBlock[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content: [...content] });
  };
  for await (const turn of ledger.getFullHistory(session.headTurnId)) {
    if (turn.turnType === 'compaction')
      add('user', [
        {
          type: 'text',
          text: `[compaction ${turn.id}: summary of the turns through ${turn.summarizedThroughTurnId}]\n${turn.summary}`,
        },
      ]);
    else add(turn.role, turn.content);
  }
  return `${JSON.stringify({ messages }, null, 2)}\n`;
}
