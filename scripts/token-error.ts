// Measures how far the ledger's token estimate (estimateTokenCounter) is from the cl100k tokenizer, over every message of nexus-eval/v1 conversation files.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { estimateTokenCounter, MESSAGE_OVERHEAD_TOKENS } from '../packages/core/src/index.ts';
import { percentile } from './bench/measure.ts';
import { formatTextTable } from './bench/text-table.ts';

const USAGE = `Usage: pnpm exec tsx scripts/token-error.ts <file or folder of nexus-eval/v1 json> [...]

Counts every message's content with cl100k_base (js-tiktoken) and with estimateTokenCounter, and
prints the error of the estimate per folder of files, then over everything.
`;

interface ConversationMessage {
  id?: string;
  content?: unknown;
}

interface GroupTotals {
  label: string;
  files: number;
  messages: number;
  /** Messages whose cl100k count is zero: no relative error is defined for them. */
  emptyMessages: number;
  exactTokens: number;
  estimatedTokens: number;
  /** |estimate - exact| / exact, one per non-empty message. */
  absoluteRelativeErrors: number[];
}

/** Every .json file under `path` (a file is taken as is), in name order. */
function collectJsonFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((left, right) => left.name.localeCompare(right.name))
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return collectJsonFiles(child);
      return extname(entry.name) === '.json' ? [child] : [];
    });
}

function readMessages(file: string): ConversationMessage[] | null {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { format?: unknown; messages?: unknown };
  if (parsed.format !== 'nexus-eval/v1' || !Array.isArray(parsed.messages)) return null;
  return parsed.messages as ConversationMessage[];
}

function emptyTotals(label: string): GroupTotals {
  return { label, files: 0, messages: 0, emptyMessages: 0, exactTokens: 0, estimatedTokens: 0, absoluteRelativeErrors: [] };
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function tableRow(totals: GroupTotals): string[] {
  const errors = totals.absoluteRelativeErrors;
  const mean = errors.length === 0 ? 0 : errors.reduce((sum, error) => sum + error, 0) / errors.length;
  const totalError = totals.exactTokens === 0 ? 0 : (totals.estimatedTokens - totals.exactTokens) / totals.exactTokens;
  return [
    totals.label,
    String(totals.files),
    totals.messages.toLocaleString('en-US'),
    totals.exactTokens.toLocaleString('en-US'),
    totals.estimatedTokens.toLocaleString('en-US'),
    `${totalError >= 0 ? '+' : ''}${percent(totalError)}`,
    percent(mean),
    errors.length === 0 ? '' : percent(percentile(errors, 95)),
  ];
}

function main(): void {
  const paths = process.argv.slice(2).filter((argument) => argument !== '--');
  if (paths.length === 0 || paths.includes('--help')) {
    process.stderr.write(USAGE);
    process.exitCode = paths.length === 0 ? 2 : 0;
    return;
  }
  const encoding = getEncoding('cl100k_base');
  const groups = new Map<string, GroupTotals>();
  const overall = emptyTotals('all');
  for (const path of paths) {
    for (const file of collectJsonFiles(resolve(path))) {
      const messages = readMessages(file);
      if (!messages) {
        process.stderr.write(`skipped ${file}: not a nexus-eval/v1 conversation\n`);
        continue;
      }
      // Files are grouped by the folder that holds them: one data set per folder.
      const folder = dirname(file);
      const group = groups.get(folder) ?? emptyTotals(basename(folder));
      groups.set(folder, group);
      group.files += 1;
      overall.files += 1;
      for (const message of messages) {
        const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '');
        // Special-token text such as "<|endoftext|>" is ordinary text in a chat message.
        const exact = encoding.encode(text, [], []).length;
        const estimate = estimateTokenCounter.countText(text);
        for (const totals of [group, overall]) {
          totals.messages += 1;
          totals.exactTokens += exact;
          totals.estimatedTokens += estimate;
          if (exact === 0) totals.emptyMessages += 1;
          else totals.absoluteRelativeErrors.push(Math.abs(estimate - exact) / exact);
        }
      }
    }
  }
  const header = ['group', 'files', 'messages', 'cl100k tokens', 'estimate', 'total error', 'mean |error|', 'p95 |error|'];
  const rows = [...groups.values()].map(tableRow);
  if (groups.size > 1) rows.push(tableRow(overall));
  process.stdout.write(`${formatTextTable(header, rows, new Set([0]))}\n`);
  process.stdout.write(
    '\ntotal error: (sum of estimates - sum of cl100k counts) / sum of cl100k counts; ' +
      '|error|: per message |estimate - cl100k| / cl100k (messages with 0 cl100k tokens left out: ' +
      `${overall.emptyMessages}); the ${MESSAGE_OVERHEAD_TOKENS}-token overhead the ledger adds per message is not counted.\n`,
  );
}

main();
