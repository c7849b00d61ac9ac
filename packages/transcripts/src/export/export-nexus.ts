// A session's full line as a nexus-eval/v1 conversation (docs/api.md): one message per raw turn,
// its turn id as the message id. nexus-eval has no compactions: `nexus import` of the file replays
// them with the ledger's own summarizer instead.

import type { AgentsLedger, ConversationMessage } from '@agent-ledger/agents-ledger';

export async function exportNexus(ledger: AgentsLedger, sessionId: string): Promise<string> {
  const session = await ledger.getSession(sessionId);
  const messages: ConversationMessage[] = [];
  if (session.headTurnId) {
    for await (const turn of ledger.getFullHistory(session.headTurnId)) {
      if (turn.turnType === 'compaction') continue;
      messages.push({ id: turn.id, role: turn.role, content: turn.content, timestamp: new Date(turn.timestamp).toISOString() });
    }
  }
  const conversation = {
    format: 'nexus-eval/v1',
    id: session.id,
    source: session.label ?? `nexus session ${session.id}`,
    messages,
    questions: [],
  };
  return `${JSON.stringify(conversation, null, 2)}\n`;
}
