// `pnpm bench:adapters`: what the SDK adapters add to a model call. One generateText through
// ledgerMiddleware against the same call on the same offline model without it, and one Agents SDK run
// with a LedgerSession against the same run with the SDK's MemorySession holding the same history,
// on sessions of each size (built as the adapters would have built them, compacted on threshold).
// Two AI SDK apps: one that sends only the new message (history 'ledger'), one that resends the
// whole conversation (history 'app', the baseline sending all of it to the model).
//
//   pnpm bench:adapters [--sizes 1000,10000] [--windows 32000,200000] [--rounds 30] [--json FILE]

import path from 'node:path';
import { ledgerMiddleware } from '@agent-ledger/ai-sdk';
import { LedgerSession } from '@agent-ledger/openai-agents';
import { Agent, MemorySession, type Model, run, setTracingDisabled, Usage } from '@openai/agents-core';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { type AgentsLedger, openAgentsLedger } from '../../packages/agents-ledger/src/index.ts';
import { latencyResults, sampleInterleaved, type TimedOperation } from './measure.ts';
import { reportProgress } from './progress.ts';
import { type BenchResult, describeMachine, formatTable, writeJsonReport } from './report.ts';
import { createSeededRandom } from './seeded-random.ts';
import { proseText } from './synthetic-conversation.ts';
import { createTemporaryDirectory, removeTemporaryDirectory } from './temporary-files.ts';

interface Options {
  sizes: number[];
  /** Session windows: the context the model gets, and so what the ledger reads for each call, grows with it. */
  windows: number[];
  rounds: number;
  json?: string;
}

function parseArguments(argv: string[]): Options {
  const options: Options = { sizes: [1_000, 10_000], windows: [32_000, 200_000], rounds: 30 };
  for (let index = 0; index < argv.length; index += 2) {
    const [flag, value] = [argv[index], argv[index + 1]];
    if (flag === '--sizes' && value) options.sizes = value.split(',').map(Number);
    else if (flag === '--windows' && value) options.windows = value.split(',').map(Number);
    else if (flag === '--rounds' && value) options.rounds = Number(value);
    else if (flag === '--json' && value) options.json = value;
    else
      throw new Error(
        `unknown argument ${flag}: pnpm bench:adapters [--sizes 1000,10000] [--windows 32000,200000] [--rounds 30] [--json FILE]`,
      );
  }
  return options;
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const offlineModel = () =>
  new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'Noted: the replica lag is back under a second.' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: USAGE,
      warnings: [],
    }),
  });
const offlineAgentModel: Model = {
  async getResponse() {
    return {
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] }],
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
    };
  },
  getStreamedResponse() {
    throw new Error('not streamed here');
  },
};

/** A conversation of `size` messages, and a session holding it as the adapter would have recorded it. */
async function conversation(ledger: AgentsLedger, size: number, window: number, seed: number) {
  const random = createSeededRandom(seed);
  const messages: ModelMessage[] = [];
  const session = await ledger.createSession({ label: `bench ${size}`, settings: { contextWindow: window } });
  for (let start = 0; start < size; start += 500) {
    const batch = Array.from({ length: Math.min(500, size - start) }, (_, offset) => {
      const index = start + offset;
      const role = index % 2 === 0 ? ('user' as const) : ('assistant' as const);
      const text = proseText(random, 30, 60);
      messages.push({ role, content: text });
      return { role, content: text, metadata: { aiSdk: { index } } };
    });
    await ledger.appendTurns(session.id, batch);
    if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
  }
  return { session, messages };
}

async function operationsFor(ledger: AgentsLedger, size: number, window: number): Promise<TimedOperation[]> {
  const newOnly = await conversation(ledger, size, window, 11);
  const whole = await conversation(ledger, size, window, 12);
  const agents = await conversation(ledger, size, window, 13);
  const at = ` (window ${window / 1000}k)`;
  const plain = offlineModel();
  const newOnlyModel = wrapLanguageModel({
    model: offlineModel(),
    middleware: ledgerMiddleware({ ledger, sessionId: newOnly.session.id, history: 'ledger' }),
  });
  const noRecallModel = wrapLanguageModel({
    model: offlineModel(),
    middleware: ledgerMiddleware({ ledger, sessionId: newOnly.session.id, history: 'ledger', retrieval: false }),
  });
  const wholeModel = wrapLanguageModel({
    model: offlineModel(),
    middleware: ledgerMiddleware({ ledger, sessionId: whole.session.id }),
  });
  const appHistory = [...whole.messages];
  const baselineHistory = [...whole.messages];
  let asked = 0;
  const question = () => {
    asked += 1;
    return { role: 'user' as const, content: `Is the replica lag back under a second? (${asked})` };
  };
  const memory = new MemorySession({ initialItems: agents.messages.map((message) => agentItem(message)) });
  const ledgerSession = new LedgerSession({ ledger, sessionId: agents.session.id });
  const agent = new Agent({ name: 'bench', model: offlineAgentModel });
  setTracingDisabled(true);
  return [
    {
      name: `generateText, new message only, no middleware${at}`,
      size,
      run: () => generateText({ model: plain, messages: [question()] }),
    },
    {
      name: `generateText, new message only, ledgerMiddleware (history 'ledger')${at}`,
      size,
      run: () => generateText({ model: newOnlyModel, messages: [question()] }),
    },
    {
      name: `generateText, new message only, ledgerMiddleware (history 'ledger', retrieval off)${at}`,
      size,
      run: () => generateText({ model: noRecallModel, messages: [question()] }),
    },
    {
      name: `generateText, whole history, no middleware${at}`,
      size,
      run: async () => {
        baselineHistory.push(question());
        baselineHistory.push(...(await generateText({ model: plain, messages: baselineHistory })).response.messages);
      },
    },
    {
      name: `generateText, whole history, ledgerMiddleware (history 'app')${at}`,
      size,
      run: async () => {
        appHistory.push(question());
        appHistory.push(...(await generateText({ model: wholeModel, messages: appHistory })).response.messages);
      },
    },
    { name: `Agents SDK run, MemorySession${at}`, size, run: () => run(agent, question().content, { session: memory }) },
    { name: `Agents SDK run, LedgerSession${at}`, size, run: () => run(agent, question().content, { session: ledgerSession }) },
  ];
}

function agentItem(message: ModelMessage) {
  return message.role === 'user'
    ? { role: 'user' as const, content: String(message.content) }
    : {
        role: 'assistant' as const,
        status: 'completed' as const,
        content: [{ type: 'output_text' as const, text: String(message.content) }],
      };
}

/** Each adapter's p50 against its baseline's (same size, same window), and the difference: what the adapter adds per call. */
function withOverheads(results: BenchResult[]): BenchResult[] {
  const pairs: Array<[string, string, string]> = [
    [
      'generateText, new message only, no middleware',
      "generateText, new message only, ledgerMiddleware (history 'ledger')",
      "ledgerMiddleware overhead (history 'ledger')",
    ],
    [
      'generateText, new message only, no middleware',
      "generateText, new message only, ledgerMiddleware (history 'ledger', retrieval off)",
      "ledgerMiddleware overhead (history 'ledger', retrieval off)",
    ],
    [
      'generateText, whole history, no middleware',
      "generateText, whole history, ledgerMiddleware (history 'app')",
      "ledgerMiddleware overhead (history 'app')",
    ],
    ['Agents SDK run, MemorySession', 'Agents SDK run, LedgerSession', 'LedgerSession overhead'],
  ];
  const out: BenchResult[] = [];
  for (const result of results) {
    const window = / \(window [^)]+\) p50$/.exec(result.name)?.[0].replace(/ p50$/, '') ?? '';
    const pair = pairs.find(([, adapter]) => result.name === `${adapter}${window} p50`);
    const baseline = pair
      ? results.find((other) => other.name === `${pair[0]}${window} p50` && other.size === result.size)?.value
      : undefined;
    out.push(baseline === undefined ? result : { ...result, baseline, ratio: result.value / baseline });
    if (pair && baseline !== undefined)
      out.push({ name: `${pair[2]}${window} p50`, size: result.size, unit: 'ms', value: result.value - baseline });
  }
  return out;
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  const directory = createTemporaryDirectory();
  try {
    const results: BenchResult[] = [];
    for (const window of options.windows)
      for (const size of options.sizes) {
        reportProgress(`building three ${size.toLocaleString('en-US')}-turn sessions, window ${window}`);
        const ledger = openAgentsLedger(path.join(directory, `adapters-${size}-${window}.db`));
        try {
          const operations = await operationsFor(ledger, size, window);
          reportProgress(`timing ${operations.length} calls × ${options.rounds} rounds`);
          results.push(
            ...latencyResults(
              await sampleInterleaved(operations, { rounds: options.rounds, iterationsPerRound: 1, warmupIterations: 3 }),
            ),
          );
        } finally {
          await ledger.close();
        }
      }
    const machine = describeMachine();
    console.log(`SDK adapters: ${options.rounds} interleaved rounds per size; each adapter against the same call without it`);
    console.log(`${machine.cpus.count} × ${machine.cpus.model}, ${machine.totalMemGiB} GiB, Node ${machine.node}\n`);
    const table = withOverheads(results);
    console.log(formatTable(table));
    if (options.json) writeJsonReport(options.json, machine, table);
  } finally {
    removeTemporaryDirectory(directory);
  }
}

await main();
