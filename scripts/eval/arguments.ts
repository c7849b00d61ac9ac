// Parses the recall evaluation's command line and holds its usage text, which also states the
// method, so `--help` says what the numbers mean. Checking the data files is left to load-data.ts.

import { EMBEDDERS, type EmbedderName, embedderProblem } from './embedder-choice.ts';

export const STRATEGIES = ['recent', 'retrieval', 'flat', 'union-find', 'hybrid'] as const;
export type StrategyName = (typeof STRATEGIES)[number];
export const MODES = ['aware', 'agnostic'] as const;
export type Mode = (typeof MODES)[number];
export const SUMMARIZERS = ['extractive', 'anthropic'] as const;
export type SummarizerName = (typeof SUMMARIZERS)[number];
export const DEFAULT_BUDGETS: readonly number[] = [500, 1000, 2000, 4000, 8000];

export interface EvalArguments {
  /** Files and folders of nexus-eval/v1 conversations, as given. */
  data: string[];
  strategies: StrategyName[];
  budgets: number[];
  modes: Mode[];
  summarizer: SummarizerName;
  /** Where to write the JSON report, if anywhere. */
  jsonPath: string | null;
  /** hybrid's retrieval share; null: the ledger's default. */
  retrievalShare: number | null;
  minRelevance: number | null;
  /** hybrid: recall settings other than the ledger's defaults (--recall name=value,…). */
  recall: Record<string, number | string>;
  /** union-find's forest settings other than the ledger's defaults (--forest name=value,…). */
  forest: Record<string, number>;
  /** A postgres:// server URL: run on PostgreSQL, a fresh database per ledger. Null: SQLite files. */
  dbServer: string | null;
  /** Two strategies to diff question by question, or null. */
  diff: [StrategyName, StrategyName] | null;
  /** Where to append every question's scores as JSON Lines, as each conversation finishes. */
  scoresPath: string | null;
  /** A --scores file to diff instead of running (with --diff). */
  fromPath: string | null;
  /** The embedder every hybrid ledger and the reference get (vectors and fused rankings); null: bm25 only. */
  embedder: EmbedderName | null;
  /** A folder keeping the embedder's vectors between runs, or null. */
  cachePath: string | null;
  help: boolean;
}

/** A command line the evaluation cannot run with: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export const USAGE = `Usage: pnpm eval --data <file or folder>... [options]

Recall evaluation (ER@B, see ../shared/data/README.md): replays each nexus-eval/v1 conversation into
the ledger as a runtime with a window of B tokens would, builds the context each question would be
asked in, under a hard budget of B tokens, and scores what survived.

Options:
  --data PATH...        nexus-eval/v1 files, or folders searched for *.json (required)
  --strategies LIST     comma-separated from recent, retrieval, flat, union-find, hybrid (default: all)
  --retrieval-share X   hybrid: most of B retrieved turns may take (chosen first), 0–1 (default: the ledger's, 1)
  --min-relevance X     hybrid: leave out matches scoring under X × the best bm25 score, 0–1 (default: the ledger's, 0)
  --db-server URL      run on PostgreSQL: each ledger in a fresh database made next to the one URL names
                        (postgres://user@host:port/db; the user may CREATE DATABASE), dropped once scored
  --recall SETTINGS     hybrid: recall settings as name=value,… (neighbours, neighbourShare, neighbourMatches, feedbackTerms,
                        feedbackFrom, feedbackWeight, candidates, speakerWeight, dateWeight, packing=value|density;
                        default: the ledger's)
  --forest SETTINGS     union-find and hybrid: forest settings as name=value,… (mergeThreshold, maxClusters,
                        maxCentroidTerms; default: the ledger's, docs/compaction.md)
  --budgets LIST        context budgets B in tokens (default ${DEFAULT_BUDGETS.join(',')})
  --mode LIST           aware, agnostic or both (default aware,agnostic)
  --summarizer NAME     extractive (default, offline) or anthropic (needs ANTHROPIC_API_KEY; model
                        $NEXUS_SUMMARY_MODEL, default claude-haiku-4-5; costs money per call)
  --json FILE           also write config, rows and cost as JSON to FILE (rewritten as each
                        conversation finishes, so a run cut short keeps what it measured)
  --scores FILE         append every question's scores to FILE as JSON Lines, as each conversation finishes
  --diff A,B            also print a per-question diff of strategies A and B (ER_frac): which questions
                        each keeps more evidence on, per budget and mode
  --from FILE           with --diff: diff a --scores file of an earlier run instead of running (no --data)
  --embedder NAME       give hybrid and the rankings an embedder: offline (Universal Sentence Encoder
                        lite, no network) or openai-compatible (NEXUS_EMBEDDINGS_URL, _MODEL, _KEY,
                        _DIMENSIONS); hybrid then fuses bm25 with cosine similarity (RRF), and two
                        rankings are added: vectors and fused (default: none, bm25 only)
  --cache FOLDER        with --embedder: keep the vectors in FOLDER (one file per model) and reuse them
                        in later runs
  --help                print this text

Method:
  - flat, union-find: for each conversation and budget B, a fresh ledger (temporary SQLite file,
    sequential ids, fixed clock) imports the conversation with threshold compaction by that
    strategy and session settings contextWindow = B, reserveTokens = round(B/10),
    keepRecentTokens = round(B/4). A conversation holding a message larger than B gets the window
    of its largest message instead (reserve and keep follow it; listed under config.windowRaises)
    so it is still measured; the context is still built within B.
  - recent: the conversation is imported once without compaction and the context is the newest
    turns that fit B (buildContext with { full: true }).
  - retrieval: the plain RAG baseline: imported the same way, the context is the turns that best
    match the question by bm25 (each reply with the turn it answers) within B (ledger.retrieve).
    It needs the question: in agnostic mode it sends the newest turns, as recent does.
  - hybrid: imported as union-find; with the question, buildContext({ query, retrieval }) first
    recalls the turns answering it (up to the retrieval share of B: bm25 on the question's
    content words, the turns beside each match, one dated line per day, docs/context.md#recall),
    then puts the topics nearest it and the recent turns in what is left; in agnostic mode it is
    union-find. retrieval stays plain bm25 (no cut-off, no neighbours): the baseline it must beat.
  - Each question is asked at the session head or, with askedAt, at the last turn of the history
    (compactions included) whose timestamp is at or before askedAt; with no such turn, in an
    empty context. agnostic builds the context without the question, aware with it as the query
    (which only union-find uses: it picks the topics nearest the query).
  - Scores, on normalised text (lower-case, punctuation removed, whitespace collapsed), where the
    context is the system text plus every message's text:
      AP       the answer is in the context as whole words (a plain substring test would find
               "2" inside any number or turn id); only questions whose answer appears so in one
               of their evidence messages
      ATR      share of the answer's content words (stopwords dropped, all words if none is left)
               found as words in the context; questions with an answer
      ER_all   1 when every evidence message survived, ER_frac the share that did; questions with
               evidence. A message survives if its text is in the context or the context cites
               its turn as [t_…]; a topic id does not count for its members (expanding a topic
               would bring back every member, so crediting it would score a whole topic as kept).
    Unanswerable questions (answer null) count for ER only; questions without evidence are left
    out of ER. n in each row is the number of questions scored for ER.
  - Beside ER, what peers report (docs/benchmarks.md#measures-peers-report):
      AC       answer containment: the answer normalised as SQuAD does (lower-case, punctuation and
               a/an/the removed, whitespace collapsed) is in the context so normalised, as whole
               words; every question with an answer
      tokens   mean tokens of the context sent; B/conv the budget over the conversation's tokens
      full     a reference row: every turn up to the question, no budget (one import without
               compaction), so each row has its ceiling
    and, once per question, where the rankings of the turns up to it put the evidence (LongMemEval's
    recall_any@k: ANY evidence session or turn among the first k; recall_all@k: every one):
      retrieval  the order \`retrieval\` sends turns in (ledger.retrieve: bm25, every word first)
      recall     the hybrid's recall ranking before its budget (ledger.recall, bm25 alone):
                 content words, any word, speakers and dates, the turns beside each match
      vectors    with --embedder: cosine similarity of the question's vector to each turn's
                 (ledger.searchByMeaning over the session's line)
      fused      with --embedder: ledger.recall with the stored vectors fused in (reciprocal rank
                 fusion, k = 60), as the hybrid context ranks with an embedder
    Sessions (k = 5, 10) rank by their best turn; a message id <session>:<turn> names its session
    (LoCoMo D3:12, LongMemEval <id>:4), and a file whose ids lack one has no session recall. Turns:
    k = 5, 10, 20. tokens@k is what the first k sessions or turns, whole, would take.
  - Message ids that repeat in a file are renamed <id>#2, … in their later copies (listed under
    config.repeatedMessageIds); evidence naming a repeated id is refused as ambiguous.
  - Tokens are the ledger's estimate (docs/tokens.md). Cost is the summarizer's calls and tokens,
    the compactions, and the seconds spent importing and building, summed over conversations and
    budgets. The same input gives the same JSON except for seconds.

Exit status: 0 done, 1 a data file or the run failed, 2 bad command line.
`;

export function parseEvalArguments(argv: readonly string[]): EvalArguments {
  const parsed: EvalArguments = {
    data: [],
    strategies: [...STRATEGIES],
    budgets: [...DEFAULT_BUDGETS],
    modes: [...MODES],
    summarizer: 'extractive',
    jsonPath: null,
    retrievalShare: null,
    minRelevance: null,
    recall: {},
    forest: {},
    dbServer: null,
    diff: null,
    scoresPath: null,
    fromPath: null,
    embedder: null,
    cachePath: null,
    help: false,
  };
  let sawData = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inlineValue] =
      argument.startsWith('--') && argument.includes('=') ? splitInline(argument) : [argument, undefined];
    const takeValue = (): string => {
      if (inlineValue !== undefined) return inlineValue;
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value.`);
      index += 1;
      return value;
    };
    switch (flag) {
      case '--data': {
        sawData = true;
        if (inlineValue !== undefined) parsed.data.push(inlineValue);
        while (argv[index + 1] !== undefined && !(argv[index + 1] as string).startsWith('--')) {
          parsed.data.push(argv[index + 1] as string);
          index += 1;
        }
        break;
      }
      case '--strategies':
        parsed.strategies = parseChoices(takeValue(), STRATEGIES, flag);
        break;
      case '--budgets':
        parsed.budgets = parseBudgets(takeValue());
        break;
      case '--mode':
      case '--modes':
        parsed.modes = parseChoices(takeValue(), MODES, flag);
        break;
      case '--summarizer':
        parsed.summarizer = parseSummarizer(takeValue());
        break;
      case '--retrieval-share': {
        const value = Number(takeValue());
        if (!(value >= 0 && value <= 1)) throw new UsageError('--retrieval-share takes a number from 0 to 1.');
        parsed.retrievalShare = value;
        break;
      }
      case '--min-relevance': {
        const value = Number(takeValue());
        if (!(value >= 0 && value <= 1)) throw new UsageError('--min-relevance takes a number from 0 to 1.');
        parsed.minRelevance = value;
        break;
      }
      case '--recall':
        parsed.recall = parseRecall(takeValue());
        break;
      case '--forest':
        parsed.forest = parseForest(takeValue());
        break;
      case '--db-server': {
        const value = takeValue();
        if (!/^postgres(ql)?:\/\//i.test(value)) throw new UsageError('--db-server takes a postgres:// URL.');
        parsed.dbServer = value;
        break;
      }
      case '--json':
        parsed.jsonPath = takeValue();
        break;
      case '--scores':
        parsed.scoresPath = takeValue();
        break;
      case '--from':
        parsed.fromPath = takeValue();
        break;
      case '--embedder':
        parsed.embedder = parseEmbedder(takeValue());
        break;
      case '--cache':
        parsed.cachePath = takeValue();
        break;
      case '--diff': {
        const pair = takeValue()
          .split(',')
          .map((part) => part.trim());
        if (pair.length !== 2 || pair[0] === pair[1]) throw new UsageError('--diff takes two different strategies, as A,B.');
        parsed.diff = parseChoices(pair.join(','), STRATEGIES, flag) as [StrategyName, StrategyName];
        break;
      }
      case '--help':
      case '-h':
        parsed.help = true;
        break;
      default:
        throw new UsageError(
          argument.startsWith('-')
            ? `Unknown option "${argument}".`
            : `Unexpected argument "${argument}": give data files and folders after --data.`,
        );
    }
  }
  if (parsed.fromPath !== null) {
    if (parsed.diff === null) throw new UsageError('--from reads a --scores file for --diff: give --diff A,B too.');
    if (sawData) throw new UsageError('--from diffs an earlier run: leave out --data.');
    return parsed;
  }
  if (!parsed.help && (!sawData || parsed.data.length === 0)) {
    throw new UsageError('--data needs at least one nexus-eval/v1 file or folder.');
  }
  if (parsed.cachePath !== null && parsed.embedder === null) {
    throw new UsageError('--cache keeps the vectors of --embedder: give --embedder too.');
  }
  if (parsed.diff?.some((name) => !parsed.strategies.includes(name))) {
    throw new UsageError(`--diff ${(parsed.diff ?? []).join(',')}: both strategies must be among --strategies.`);
  }
  return parsed;
}

const RECALL_NUMBERS = [
  'neighbours',
  'neighbourShare',
  'neighbourMatches',
  'neighbourLengthRatio',
  'feedbackTerms',
  'feedbackFrom',
  'feedbackWeight',
  'candidates',
  'speakerWeight',
  'dateWeight',
];

/** `neighbourShare=0.6,packing=density` → { neighbourShare: 0.6, packing: 'density' }. */
function parseRecall(text: string): Record<string, number | string> {
  const settings: Record<string, number | string> = {};
  for (const part of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name = '', value = ''] = part.split('=', 2).map((item) => item.trim());
    if (name === 'packing' && (value === 'value' || value === 'density')) settings.packing = value;
    else if (RECALL_NUMBERS.includes(name) && value !== '' && Number.isFinite(Number(value)) && Number(value) >= 0) {
      settings[name] = Number(value);
    } else {
      throw new UsageError(
        `--recall: "${part}" is not a setting; use name=value with ${RECALL_NUMBERS.join(', ')} (numbers, 0 or more) or packing=value|density.`,
      );
    }
  }
  return settings;
}

const FOREST_NUMBERS = ['mergeThreshold', 'maxClusters', 'maxCentroidTerms'];

/** `mergeThreshold=0.2,maxClusters=20` → { mergeThreshold: 0.2, maxClusters: 20 } (the forest checks ranges). */
function parseForest(text: string): Record<string, number> {
  const settings: Record<string, number> = {};
  for (const part of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name = '', value = ''] = part.split('=', 2).map((item) => item.trim());
    if (!FOREST_NUMBERS.includes(name) || value === '' || !Number.isFinite(Number(value))) {
      throw new UsageError(`--forest: "${part}" is not a setting; use name=number with ${FOREST_NUMBERS.join(', ')}.`);
    }
    settings[name] = Number(value);
  }
  return settings;
}

function splitInline(argument: string): [string, string] {
  const at = argument.indexOf('=');
  return [argument.slice(0, at), argument.slice(at + 1)];
}

/** A comma-separated list of known names, in the order given, without repeats. */
function parseChoices<Name extends string>(text: string, known: readonly Name[], flag: string): Name[] {
  const names = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError(`${flag} needs at least one of ${known.join(', ')}.`);
  for (const name of names) {
    if (!(known as readonly string[]).includes(name)) {
      throw new UsageError(`${flag}: unknown "${name}"; choose from ${known.join(', ')}.`);
    }
  }
  return [...new Set(names)] as Name[];
}

function parseBudgets(text: string): number[] {
  const budgets = text.split(',').map((part) => {
    const cleaned = part.trim().replaceAll('_', '');
    const budget = Number(cleaned);
    if (cleaned === '' || !Number.isSafeInteger(budget) || budget < 1) {
      throw new UsageError(`--budgets takes whole numbers of tokens, 1 or more, got "${part}".`);
    }
    return budget;
  });
  return [...new Set(budgets)];
}

function parseEmbedder(name: string): EmbedderName {
  if (!(EMBEDDERS as readonly string[]).includes(name)) {
    throw new UsageError(`--embedder: unknown "${name}"; choose from ${EMBEDDERS.join(', ')}.`);
  }
  const problem = embedderProblem(name as EmbedderName, process.env);
  if (problem) throw new UsageError(problem);
  return name as EmbedderName;
}

function parseSummarizer(name: string): SummarizerName {
  if (name === 'anthropic' && !process.env.ANTHROPIC_API_KEY) {
    throw new UsageError(
      '--summarizer anthropic needs ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy); use extractive offline.',
    );
  }
  if (!(SUMMARIZERS as readonly string[]).includes(name)) {
    throw new UsageError(`--summarizer: unknown "${name}"; choose from ${SUMMARIZERS.join(', ')}.`);
  }
  return name as SummarizerName;
}
