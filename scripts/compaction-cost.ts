// What compaction costs with each strategy: every nexus-eval/v1 conversation given is replayed
// into a fresh ledger as a runtime would (threshold compactions), once per strategy, and the
// summarizer's calls and tokens are counted. The same summarizer (the offline extractive one)
// serves every strategy, so the difference is the strategy's.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importConversation, openAgentsLedger, parseConversation } from '../packages/agents-ledger/src/index.ts';
import { estimateTokenCounter } from '../packages/core/src/index.ts';
import { createExtractiveSummarizer } from '../packages/summarizers/src/index.ts';
import { nowMilliseconds } from './bench/measure.ts';
import { formatTextTable } from './bench/text-table.ts';
import { countingSummarizer } from './counting-summarizer.ts';

const USAGE = `Usage: pnpm exec tsx scripts/compaction-cost.ts [options] <file or folder of nexus-eval/v1 json> [...]

Replays each conversation with each strategy (threshold compaction, offline extractive summarizer)
and prints summarizer calls, input and output tokens and compactions, per conversation and in total.

  --strategies LIST      comma-separated (default flat,union-find)
  --context-window N     session contextWindow in tokens (default 32000)
  --reserve N            reserveTokens (default 4000)
  --keep N               keepRecentTokens (default 8000)
`;

interface Options {
  paths: string[];
  strategies: string[];
  settings: { contextWindow: number; reserveTokens: number; keepRecentTokens: number };
}

interface Cost {
  conversation: string;
  strategy: string;
  messages: number;
  compactions: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  milliseconds: number;
}

function parseArguments(argv: readonly string[]): Options | null {
  const options: Options = {
    paths: [],
    strategies: ['flat', 'union-find'],
    settings: { contextWindow: 32000, reserveTokens: 4000, keepRecentTokens: 8000 },
  };
  const number = (value: string | undefined, flag: string) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${flag} takes a whole number, got "${value}".`);
    return parsed;
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const value = () => argv[++index];
    if (argument === '--help' || argument === '-h') return null;
    else if (argument === '--strategies') options.strategies = (value() ?? '').split(',').filter(Boolean);
    else if (argument === '--context-window') options.settings.contextWindow = number(value(), argument);
    else if (argument === '--reserve') options.settings.reserveTokens = number(value(), argument);
    else if (argument === '--keep') options.settings.keepRecentTokens = number(value(), argument);
    else if (argument.startsWith('--')) throw new Error(`unknown option ${argument}`);
    else options.paths.push(argument);
  }
  if (options.paths.length === 0) throw new Error('give at least one conversation file or folder');
  return options;
}

function collectJsonFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => collectJsonFiles(join(path, name)))
    .filter((file) => file.endsWith('.json'));
}

async function measure(file: string, strategy: string, options: Options, directory: string): Promise<Cost> {
  const conversation = parseConversation(readFileSync(file, 'utf8'), file);
  const summarizer = countingSummarizer(createExtractiveSummarizer({ tokenCounter: estimateTokenCounter }));
  const path = join(directory, `${conversation.id}-${strategy}.sqlite`);
  // A fixed clock and sequential ids would not change the counts; the file's own timestamps are used.
  const ledger = openAgentsLedger(path, { summarizer });
  try {
    const started = nowMilliseconds();
    const result = await importConversation(ledger, conversation, { strategy, settings: options.settings });
    return {
      conversation: conversation.id,
      strategy,
      messages: result.turns,
      compactions: result.compactions,
      calls: summarizer.calls,
      inputTokens: summarizer.inputTokens,
      outputTokens: summarizer.outputTokens,
      milliseconds: nowMilliseconds() - started,
    };
  } finally {
    await ledger.close();
  }
}

async function main(): Promise<void> {
  const options = parseArguments(process.argv.slice(2));
  if (!options) {
    process.stdout.write(USAGE);
    return;
  }
  const files = options.paths.flatMap(collectJsonFiles);
  const directory = mkdtempSync(join(tmpdir(), 'nexus-compaction-cost-'));
  const costs: Cost[] = [];
  try {
    for (const file of files) {
      for (const strategy of options.strategies) {
        process.stderr.write(`\r${file} · ${strategy}                    `);
        costs.push(await measure(file, strategy, options, directory));
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
    process.stderr.write('\n');
  }
  const { contextWindow, reserveTokens, keepRecentTokens } = options.settings;
  process.stdout.write(
    `contextWindow ${contextWindow}, reserve ${reserveTokens}, keep ${keepRecentTokens}; offline extractive summarizer; ` +
      `${files.length} conversation(s)\n\n`,
  );
  const row = (cost: Omit<Cost, 'conversation' | 'strategy'>, label: string, strategy: string) => [
    label,
    strategy,
    String(cost.messages),
    String(cost.compactions),
    String(cost.calls),
    cost.inputTokens.toLocaleString('en-US'),
    cost.outputTokens.toLocaleString('en-US'),
    (cost.milliseconds / 1000).toFixed(2),
  ];
  const totals = options.strategies.map((strategy) => {
    const mine = costs.filter((cost) => cost.strategy === strategy);
    const sum = (pick: (cost: Cost) => number) => mine.reduce((total, cost) => total + pick(cost), 0);
    return {
      strategy,
      messages: sum((cost) => cost.messages),
      compactions: sum((cost) => cost.compactions),
      calls: sum((cost) => cost.calls),
      inputTokens: sum((cost) => cost.inputTokens),
      outputTokens: sum((cost) => cost.outputTokens),
      milliseconds: sum((cost) => cost.milliseconds),
    };
  });
  const header = [
    'conversation',
    'strategy',
    'messages',
    'compactions',
    'summarizer calls',
    'input tokens',
    'output tokens',
    'seconds',
  ];
  process.stdout.write(
    `${formatTextTable(
      header,
      [
        ...costs.map((cost) => row(cost, cost.conversation, cost.strategy)),
        ...totals.map((total) => row(total, 'TOTAL', total.strategy)),
      ],
      new Set([0, 1]),
    )}\n`,
  );
  const baseline = totals[0];
  if (baseline && totals.length > 1) {
    process.stdout.write(`\nratios against ${baseline.strategy} (same run):\n`);
    for (const total of totals.slice(1)) {
      const ratio = (value: number, reference: number) => (reference === 0 ? 'n/a' : `${(value / reference).toFixed(2)}x`);
      process.stdout.write(
        `  ${total.strategy}: calls ${ratio(total.calls, baseline.calls)}, input tokens ${ratio(total.inputTokens, baseline.inputTokens)}, ` +
          `output tokens ${ratio(total.outputTokens, baseline.outputTokens)}\n`,
      );
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  process.exitCode = 1;
});
