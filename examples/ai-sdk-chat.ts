// An AI SDK app with the agent ledger: three lines (open the ledger, wrap the model with
// ledgerMiddleware, pass the session) and the app keeps sending its whole history while the model
// gets a bounded context. Offline by default: the AI SDK's own test model answers from what it was
// sent. With ANTHROPIC_API_KEY set, Claude answers through @ai-sdk/anthropic.
//   pnpm example:ai-sdk            (NEXUS_DB=chat.db to keep the ledger; default: a temp file)

import os from 'node:os';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { ledgerMiddleware } from '@agent-ledger/ai-sdk';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { answerFrom, CONVERSATION } from './conversation.ts';

const file = process.env.NEXUS_DB ?? path.join(os.tmpdir(), `ai-sdk-example-${process.pid}.db`);
const ledger = openAgentsLedger(file);
const session = await ledger.createSession({ label: 'ai-sdk example', settings: { contextWindow: 1200, reserveTokens: 200 } });
/** How many messages the offline model received on its last call (the system one included). */
let received_ = 0;
const inner = await chooseModel();
const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId: session.id }) });

const messages: ModelMessage[] = [];
for (const text of CONVERSATION) {
  messages.push({ role: 'user', content: text });
  const result = await generateText({ model, system: 'You are the migration assistant. Answer in one sentence.', messages });
  messages.push(...result.response.messages);
  if (text.endsWith('?')) console.log(`> ${text}\n  ${result.text}`);
}

const turns: { compactions: number; normal: number } = { compactions: 0, normal: 0 };
for await (const turn of ledger.getFullHistory((await ledger.getSession(session.id)).headTurnId as string))
  turns[turn.turnType === 'compaction' ? 'compactions' : 'normal'] += 1;
const received = received_ > 0 ? `, the model received ${received_}` : '';
console.log(
  `\nThe app sent ${messages.length - 1} messages on its last call${received}; the ledger holds ${turns.normal} turns ` +
    `and ${turns.compactions} compaction${turns.compactions === 1 ? '' : 's'} in ${file}.`,
);
await ledger.close();

async function chooseModel(): Promise<LanguageModelV3> {
  if (process.env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic');
    return anthropic(process.env.NEXUS_CHAT_MODEL ?? 'claude-haiku-4-5');
  }
  return new MockLanguageModelV3({
    modelId: 'offline',
    doGenerate: async ({ prompt }) => {
      received_ = prompt.length;
      const words = (message: (typeof prompt)[number]) =>
        message.role === 'system' ? message.content : message.content.map((part) => ('text' in part ? part.text : '')).join('\n');
      const asked = words(prompt.at(-1) as (typeof prompt)[number]);
      const context = prompt.slice(0, -1).map(words).join('\n');
      const none = { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined };
      return {
        content: [{ type: 'text', text: answerFrom(context, asked) }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: { inputTokens: none, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
        warnings: [],
      };
    },
  });
}
