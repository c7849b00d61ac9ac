// Entry point of the recall evaluation (`pnpm eval`): ER@B, AP and ATR of ../shared/data/README.md,
// for each compaction strategy at each context budget, with and without the question known; and
// beside them what peers report (issue 30): answer containment, the tokens sent, the budget as a
// share of the conversation, a full-context reference, and session and turn recall@k of the rankings.
//
// Method (also in the --help text, arguments.ts):
// - flat and union-find: for each conversation and budget B, the conversation is imported into a
//   fresh ledger (a temporary SQLite file, sequential ids, a fixed clock, the offline extractive
//   summarizer wrapped to count calls and tokens) as a runtime with a window of B would run it:
//   contextWindow = B, reserveTokens = round(B/10), keepRecentTokens = round(B/4), threshold
//   compaction by that strategy. A message larger than B would be refused (MESSAGE_TOO_LARGE), so
//   such a conversation gets the window of its largest message for that budget (reserve and keep
//   follow it) and is listed under config.windowRaises: measured, not skipped, and still built
//   within B. Skipping it instead would drop most of LongMemEval at the smaller budgets (its
//   largest messages run to 800–6,100 tokens).
// - A message id that repeats in a file (two LongMemEval haystacks hold a session twice, which
//   the ledger's parser refuses) is renamed <id>#2, … in its later copies (load-data.ts) and
//   listed under config.repeatedMessageIds.
// - recent (keep the newest turns that fit): one import without compaction, contexts built with
//   { budgetTokens: B, full: true }.
// - A question is asked at the session head or, with askedAt, at the last turn of the history
//   (compactions included, as the importer dated them) whose timestamp is at or before askedAt.
//   agnostic: built without the question; aware: with it as the query.
// - Scoring is score.ts: normalised substring for AP and evidence text, content words for ATR,
//   and a direct [t_…] citation also keeps an evidence message (a topic id does not: it would
//   credit every member of the topic). n per row counts the questions scored for ER.
// - Deterministic: the same input gives the same JSON except for the seconds.

import { writeFileSync } from 'node:fs';
import { parseEvalArguments, USAGE, UsageError } from './arguments.ts';
import { diffStrategies, renderDiff } from './diff.ts';
import { createEvalEmbedder } from './embedder-choice.ts';
import { createProgressReporter } from './progress.ts';
import { renderReport, reportJson } from './report.ts';
import { runEvaluation } from './run-evaluation.ts';
import { appendScores, readScores, startScoresFile } from './scores-file.ts';

const HINT = 'Run `pnpm exec tsx scripts/eval/eval.ts --help` for the usage and the method.';

async function main(argv: readonly string[]): Promise<number> {
  let options: ReturnType<typeof parseEvalArguments>;
  try {
    options = parseEvalArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`eval: ${error.message}\n${HINT}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.fromPath !== null && options.diff !== null) {
    try {
      process.stdout.write(renderDiff(diffStrategies(readScores(options.fromPath), ...options.diff)));
      return 0;
    } catch (error) {
      process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  }
  const progress = createProgressReporter(process.stderr);
  const started = performance.now();
  const { jsonPath, scoresPath } = options;
  try {
    if (scoresPath) startScoresFile(scoresPath);
    const { embedder: embedderName, cachePath } = options;
    const { report, scores } = await runEvaluation({
      ...options,
      ...(embedderName
        ? { embedding: { name: embedderName, embedder: createEvalEmbedder(embedderName, process.env), cacheFolder: cachePath } }
        : {}),
      onProgress: progress.report,
      // Written as each conversation finishes: a failure late in a long run keeps the rest.
      onConversation: (done) => {
        if (scoresPath) appendScores(scoresPath, [...done.scores, ...done.reference, ...done.rankings]);
        if (jsonPath) writeFileSync(jsonPath, reportJson(done.report));
      },
    });
    progress.finish();
    process.stdout.write(renderReport(report));
    if (options.diff) process.stdout.write(`\n${renderDiff(diffStrategies(scores, ...options.diff))}`);
    if (jsonPath) writeFileSync(jsonPath, reportJson(report));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(`[eval] done in ${seconds} s${jsonPath ? `; JSON written to ${jsonPath}` : ''}\n`);
    for (const failure of report.config.failures) process.stderr.write(`eval: ${failure.file} failed: ${failure.error}\n`);
    if (report.embedding && report.embedding.failures > 0) {
      process.stderr.write(`eval: the embedder failed ${report.embedding.failures} time(s); those contexts were bm25 alone\n`);
    }
    return report.config.failures.length > 0 ? 1 : 0;
  } catch (error) {
    progress.finish();
    process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`eval: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
