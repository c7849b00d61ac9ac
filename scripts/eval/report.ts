// How the evaluation's report reads: markdown tables for stdout (the "all" rows with the
// full-context reference under them, the cost, the rankings' session and turn recall, then ER_frac,
// ER_all and answer containment per category when there are several), and the JSON file. Pure:
// eval.ts writes them.

import { ALL_CATEGORIES, type ResultRow } from './aggregate.ts';
import type { ReferenceRow } from './aggregate-peers.ts';
import { formatMarkdownTable, formatPercent, formatTokens } from './markdown-table.ts';
import { rankingByCategoryTable, rankingTables } from './report-ranking.ts';
import type { EvaluationReport } from './run-evaluation.ts';

export function renderReport(report: EvaluationReport): string {
  const { config, rows, cost } = report;
  const sections: string[] = [];
  const raised = config.windowRaises.length;
  sections.push(
    `${config.data.length} conversation(s), ${config.questions.total} question(s): ${config.questions.er} scored for ER, ` +
      `${config.questions.ap} for AP, ${config.questions.atr} for ATR, ${config.questions.containment} for AC. Summarizer ${config.summarizer}; tokens ${config.tokenCounter}.` +
      (raised > 0 ? ` ${raised} window(s) raised to the largest message (config.windowRaises).` : '') +
      (config.repeatedMessageIds.length > 0
        ? ` ${config.repeatedMessageIds.length} file(s) repeat message ids; later copies imported as <id>#2 (config.repeatedMessageIds).`
        : '') +
      (config.emptyMessages.length > 0
        ? ` ${config.emptyMessages.reduce((total, item) => total + item.ids.length, 0)} empty message(s) skipped by import (config.emptyMessages).`
        : '') +
      (config.failures.length > 0
        ? ` ${config.failures.length} conversation(s) FAILED and are left out: ${config.failures.map((failure) => `${failure.file} (${failure.error})`).join('; ')}.`
        : ''),
  );
  sections.push(embeddingLine(report));
  sections.push(allQuestionsTable(report));
  sections.push(
    `## Cost (summed over conversations and budgets)\n\n${formatMarkdownTable(
      ['strategy', 'summarizer calls', 'input tokens', 'output tokens', 'compactions', 'seconds'],
      cost.map((row) => [
        row.strategy,
        row.calls.toLocaleString('en-US'),
        row.input_tokens.toLocaleString('en-US'),
        row.output_tokens.toLocaleString('en-US'),
        row.compactions.toLocaleString('en-US'),
        row.seconds.toFixed(1),
      ]),
      new Set([0]),
    )}`,
  );
  const categories = [...new Set(rows.map((row) => row.category))].filter((category) => category !== ALL_CATEGORIES);
  if (categories.length > 1) {
    // A category without evidence (unanswerable questions) has no ER to show.
    const scored = categories.filter((category) => rows.some((row) => row.category === category && row.n > 0));
    const answered = categories.filter((category) => rows.some((row) => row.category === category && row.containment !== null));
    const tables: Array<[CategoryTableInput['metric'], string[]]> = [
      ['er_frac', scored],
      ['er_all', scored],
      ['containment', answered],
    ];
    for (const [metric, chosen] of tables) {
      for (const mode of config.modes) {
        sections.push(categoryTable({ rows, reference: report.reference, categories: chosen, mode, metric }));
      }
    }
    const ranking = rankingByCategoryTable(report.ranking, scored);
    if (ranking) sections.push(ranking);
    sections.push('AP and ATR per category, and categories without evidence, are in the JSON report (--json).');
  }
  return `${sections.join('\n\n')}\n`;
}

/** The "all" rows, the full-context reference under them, then the rankings' tables. */
function allQuestionsTable(report: EvaluationReport): string {
  const all = report.rows.filter((row) => row.category === ALL_CATEGORIES);
  const lines = all.map((row) => [
    row.strategy,
    String(row.budget),
    row.mode,
    String(row.n),
    formatPercent(row.ap),
    formatPercent(row.atr),
    formatPercent(row.er_all),
    formatPercent(row.er_frac),
    formatPercent(row.containment),
    formatTokens(row.tokens),
    formatPercent(row.budget_share),
  ]);
  const full = report.reference.find((row) => row.category === ALL_CATEGORIES);
  if (full) {
    lines.push([
      'full',
      'all',
      '–',
      String(full.n),
      formatPercent(full.ap),
      formatPercent(full.atr),
      formatPercent(full.er_all),
      formatPercent(full.er_frac),
      formatPercent(full.containment),
      formatTokens(full.tokens),
      '–',
    ]);
  }
  const lengths = report.config.data.map((item) => item.tokens);
  const meanLength = lengths.length > 0 ? lengths.reduce((total, tokens) => total + tokens, 0) / lengths.length : null;
  const table = formatMarkdownTable(
    ['strategy', 'budget', 'mode', 'n', 'AP', 'ATR', 'ER_all', 'ER_frac', 'AC', 'tokens', 'B/conv'],
    lines,
    new Set([0, 2]),
  );
  const legend =
    'AC: answer containment (the answer, normalised as SQuAD does, in the context). tokens: mean tokens of the context sent. ' +
    `B/conv: the budget as a share of the conversation (mean; conversations of ${formatTokens(meanLength)} tokens on average). ` +
    (full ? 'full: every turn up to the question, no budget, the ceiling of the rows.' : '');
  return [`## Recall, all questions\n\n${table}\n\n${legend.trim()}`, ...rankingTables(report.ranking)].join('\n\n');
}

/** Which embedder ran and what it cost, or that none did. */
export function embeddingLine({ config, embedding }: Pick<EvaluationReport, 'config' | 'embedding'>): string {
  if (!config.embedder || !embedding) return 'Embedder: none (hybrid and the rankings are bm25 alone; --embedder adds vectors).';
  const count = (value: number) => value.toLocaleString('en-US');
  return (
    `Embedder: ${config.embedder.name} (${config.embedder.model}): ${count(embedding.embedded)} text(s) embedded in ` +
    `${embedding.seconds.toFixed(1)} s, ${count(embedding.fromDisk)} read from the cache` +
    `${config.embedder.cache ? ` (${config.embedder.cache})` : ''}, ${count(embedding.requested)} asked for in all; ` +
    `${embedding.failures} failed call(s)${embedding.failures > 0 ? ': those contexts fell back to bm25 alone' : ''}.`
  );
}

const METRIC_TITLES = { er_frac: 'ER_frac', er_all: 'ER_all', containment: 'Answer containment' } as const;

interface CategoryTableInput {
  rows: readonly ResultRow[];
  /** The full-context reference: its value per category is the last column. */
  reference: readonly ReferenceRow[];
  categories: readonly string[];
  mode: string;
  metric: keyof typeof METRIC_TITLES;
}

/** One metric per category: one row per category and strategy, one column per budget, then the full context. */
function categoryTable({ rows, reference, categories, mode, metric }: CategoryTableInput): string {
  const mine = rows.filter((row) => row.mode === mode);
  const strategies = [...new Set(mine.map((row) => row.strategy))];
  const budgets = [...new Set(mine.map((row) => row.budget))];
  const byKey = new Map(mine.map((row) => [JSON.stringify([row.category, row.strategy, row.budget]), row]));
  const ceiling = new Map(reference.map((row) => [row.category, row[metric]]));
  const lines = categories.flatMap((category) =>
    strategies.map((strategy) => {
      const cells = budgets.map((budget) => byKey.get(JSON.stringify([category, strategy, budget])));
      // n counts the questions with evidence; containment counts those with an answer, so it shows none.
      const count = metric === 'containment' ? [] : [String(cells[0]?.n ?? 0)];
      const full = reference.length > 0 ? [formatPercent(ceiling.get(category) ?? null)] : [];
      return [category, ...count, strategy, ...cells.map((row) => formatPercent(row?.[metric] ?? null)), ...full];
    }),
  );
  const header = [
    'category',
    ...(metric === 'containment' ? [] : ['n']),
    'strategy',
    ...budgets.map((budget) => `B=${budget}`),
    ...(reference.length > 0 ? ['full'] : []),
  ];
  const strategyColumn = metric === 'containment' ? 1 : 2;
  return `## ${METRIC_TITLES[metric]} by category, ${mode}\n\n${formatMarkdownTable(header, lines, new Set([0, strategyColumn]))}`;
}

/** The JSON report, as written by --json: stable key order, so equal runs give equal files (but for seconds). */
export function reportJson(report: EvaluationReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
