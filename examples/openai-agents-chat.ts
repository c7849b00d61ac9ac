// An OpenAI Agents SDK app with the agent ledger: a LedgerSession is the run's session, so the runner
// reads the ledger's bounded context as its history and stores every item in the ledger. Offline by
// default: a model that answers from what it was sent. With OPENAI_API_KEY set, an OpenAI model
// answers (@openai/agents-openai).
//   pnpm example:openai-agents     (NEXUS_DB=chat.db to keep the ledger; default: a temp file)

import os from 'node:os';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { LedgerSession } from '@agent-ledger/openai-agents';
import { Agent, type Model, type ModelRequest, run, setTracingDisabled, Usage } from '@openai/agents-core';
import { answerFrom, CONVERSATION } from './conversation.ts';

const file = process.env.NEXUS_DB ?? path.join(os.tmpdir(), `openai-agents-example-${process.pid}.db`);
const ledger = openAgentsLedger(file);
const session = await LedgerSession.create({
  ledger,
  session: { label: 'agents example', settings: { contextWindow: 1200, reserveTokens: 200 } },
});
const agent = new Agent({
  name: 'migration',
  instructions: 'You are the migration assistant. Answer in one sentence.',
  model: await chooseModel(),
});

/** How many items the offline model received on its last call. */
let received = 0;
for (const text of CONVERSATION) {
  // recallFor: the run's history also carries the turns the ledger recalls for this message.
  const result = await session.withOverflowRecovery(() => run(agent, text, { session: session.recallFor(text) }));
  if (text.endsWith('?')) console.log(`> ${text}\n  ${result.finalOutput}`);
  await session.idle();
}

const id = await session.getSessionId();
const turns = { compactions: 0, normal: 0 };
for await (const turn of ledger.getFullHistory((await ledger.getSession(id)).headTurnId as string))
  turns[turn.turnType === 'compaction' ? 'compactions' : 'normal'] += 1;
const seen = received > 0 ? `the model received ${received} items on its last call; ` : '';
console.log(
  `\n${seen}the ledger holds ${turns.normal} turns and ${turns.compactions} compaction${turns.compactions === 1 ? '' : 's'} in ${file}.`,
);
await ledger.close();

async function chooseModel(): Promise<Model | string> {
  if (process.env.OPENAI_API_KEY) {
    const { setDefaultOpenAIKey } = await import('@openai/agents-openai');
    setDefaultOpenAIKey(process.env.OPENAI_API_KEY);
    return process.env.NEXUS_CHAT_MODEL ?? 'gpt-4.1-mini';
  }
  setTracingDisabled(true);
  return {
    async getResponse(request: ModelRequest) {
      const items = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
      received = items.length;
      const words = (item: (typeof items)[number]) => {
        if (!('role' in item)) return '';
        if (typeof item.content === 'string') return item.content;
        return item.content.map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '')).join('\n');
      };
      const asked = words(items.at(-1) as (typeof items)[number]);
      const text = answerFrom(items.slice(0, -1).map(words).join('\n'), asked);
      return {
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }],
        usage: new Usage(),
      };
    },
    getStreamedResponse() {
      throw new Error('The offline example model does not stream.');
    },
  };
}
