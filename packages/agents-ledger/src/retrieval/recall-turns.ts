// Recall: the raw turns on a line that best answer an incoming message, packed into a token budget.
// What the hybrid context sends when the question is known (docs/context.md#recall). Over plain bm25
// (retrieve-turns.ts, kept as the baseline), each step measured on the evaluation
// (docs/benchmarks.md): the query without stopwords, any of its words, the speakers and dates it
// names read as such, optionally pseudo-relevance feedback (lexical-scores.ts); the turns beside a
// match (the question a reply answers, the reply a question got) at a share of its score, less
// when far longer than the match; turns packed by value with no turn twice; one dated line per day
// and `[id speaker]` per turn, so a date and a speaker cost a few tokens, not twenty per turn.

import { InvalidInputError, type NormalTurn } from '@agent-ledger/core';
import type { ChainRange, StoredTurn, StoreOperations } from '@agent-ledger/store';
import type { LedgerContext } from '../ledger-context.ts';
import { readSessionLine, type SessionLine } from '../line/session-line.ts';
import type { ChainSegment } from '../store/chain.ts';
import { turnFromRow } from '../store/row-mapping.ts';
import { type TurnRowReader, turnRowReader } from '../store/turns-by-id.ts';
import { lexicalScores } from './lexical-scores.ts';
import { queryTerms } from './query-terms.ts';
import { datedLineTokens, RECALL_HEADER, type RecalledTurn, recalledLineTokens, renderRecalled } from './render-recalled.ts';
import type { Retrieval, RetrievedPiece } from './retrieve-turns.ts';
import { rankByVector, reciprocalRankFusion } from './turn-vectors.ts';

export interface RecallTuning {
  /** Ranked matches considered (default 200). */
  candidates?: number;
  /** Leave out matches under this fraction of the best one's score (0–1, default 0). */
  minRelevance?: number;
  /** Words pseudo-relevance feedback adds to the query (0: off). */
  feedbackTerms?: number;
  /** How many of the first matches feedback reads. */
  feedbackFrom?: number;
  /** Weight of the feedback search's scores against the question's own. */
  feedbackWeight?: number;
  /** Turns either side of a match brought with it (0: none). */
  neighbours?: number;
  /** A neighbour's value as a share of its match's (per step away). */
  neighbourShare?: number;
  /**
   * Only the best this many matches bring their neighbours (0: every match, default 100): a
   * neighbour of a weak match is worth less still and was never packed on the evaluation sets,
   * while reading the neighbours of every match cost about nine rows a match.
   */
  neighbourMatches?: number;
  /**
   * A neighbour longer than this many times its match is valued down in proportion (0: off): a
   * 600-token reply beside an 80-token match is mostly about something else.
   */
  neighbourLengthRatio?: number;
  /** Order to pack in: by value, or by value per token. */
  packing?: 'value' | 'density';
  /**
   * A turn said by a speaker the query names is worth (1 + this) times its match, and the name is
   * not searched for (0: names are plain words). Speakers are the turns' author names.
   */
  speakerWeight?: number;
  /**
   * The best match among the turns said on a day (or in a month) the query names gains this much,
   * and the date's words are not searched for (0: dates are plain words).
   */
  dateWeight?: number;
}

export interface RecallOptions extends RecallTuning {
  query: string;
  budgetTokens: number;
  /** Whose line to search (default: the session that wrote `atTurnId`). */
  sessionId?: string;
  /** Turns already in the context, left out. */
  excludeTurnIds?: ReadonlySet<string>;
  /**
   * The query's vector from an Embedder, with the line's turns embedded (turn-vectors.ts): the
   * cosine ranking is fused with bm25's by reciprocal rank fusion. Absent: bm25 alone.
   */
  semantic?: { model: string; queryVector: readonly number[] };
}

/** The measured defaults (docs/benchmarks.md, "Choosing recall's settings"). */
export const DEFAULT_RECALL_TUNING: Required<RecallTuning> = {
  candidates: 200,
  minRelevance: 0,
  feedbackTerms: 0,
  feedbackFrom: 3,
  feedbackWeight: 0.5,
  neighbours: 2,
  neighbourShare: 0.7,
  neighbourMatches: 100,
  neighbourLengthRatio: 2,
  packing: 'value',
  speakerWeight: 0.5,
  dateWeight: 1,
};

interface Candidate {
  row: StoredTurn;
  value: number;
}

/** Turns on the line up to `atTurnId` that answer `query` best, within the budget, rendered. */
export async function recallTurns(ledger: LedgerContext, atTurnId: string, options: RecallOptions): Promise<Retrieval> {
  const budget = requireBudget(options.budgetTokens);
  if (budget === 0) return EMPTY;
  // Recall ranks the whole line by search, so the newest page a context reads with the line is not wanted.
  const line = await readSessionLine(ledger.store, atTurnId, { sessionId: options.sessionId, newestLimit: 0 });
  return packRecall(ledger, await rankRecall(ledger, line, options), budget, options.excludeTurnIds);
}

/** A candidate for recall, ranked: its turn, its value and what its line costs. */
export interface RankedCandidate {
  turn: NormalTurn;
  depth: number;
  value: number;
  cost: number;
}

/**
 * Every candidate turn for `query` on the line, best first: the searches, feedback, fusion and
 * neighbours, done once. `excludeTurnIds` only steers feedback (which matches it reads from);
 * packing leaves excluded turns out, so one ranking serves several packings.
 */
export async function rankRecall(
  ledger: LedgerContext,
  line: Pick<SessionLine, 'turn' | 'segments'>,
  options: Omit<RecallOptions, 'budgetTokens' | 'sessionId'>,
): Promise<RankedCandidate[]> {
  const tuning = { ...DEFAULT_RECALL_TUNING, ...definedOnly(options) };
  const { store } = ledger;
  const { turn: at, segments } = line;
  const terms = queryTerms(options.query);
  if (terms.length === 0 && !options.semantic) return [];
  const limit = Math.min(500, Math.max(1, tuning.candidates));
  const rows = turnRowReader(store);

  let scores =
    terms.length === 0
      ? new Map<string, number>()
      : await lexicalScores(ledger, {
          segments,
          query: options.query,
          terms,
          tuning,
          excluded: options.excludeTurnIds ?? new Set<string>(),
          rows,
        });
  if (options.semantic) {
    const lexical = [...scores].sort((left, right) => right[1] - left[1]).map(([id]) => id);
    const semantic = await rankByVector(ledger, segments, {
      model: options.semantic.model,
      query: options.semantic.queryVector,
      limit,
    });
    scores = reciprocalRankFusion([lexical, semantic.map((match) => match.turnId)]);
  }
  if (scores.size === 0) return [];

  const candidates = await withNeighbours({ store, rows, segments, atDepth: at.depth }, scores, tuning);
  return [...candidates.values()]
    .filter((candidate) => candidate.row.turnType === 'normal')
    .map((candidate) => {
      const turn = turnFromRow(candidate.row) as NormalTurn;
      return {
        turn,
        depth: candidate.row.depth,
        value: candidate.value,
        cost: recalledLineTokens(ledger.tokenCounter, turn) + 1,
      };
    })
    .sort((left, right) => {
      const order = tuning.packing === 'density' ? right.value / right.cost - left.value / left.cost : right.value - left.value;
      // Recency breaks ties: the later of two equal turns is the one that holds.
      return order !== 0 ? order : right.depth - left.depth;
    });
}

/** The best of the ranked candidates that fit `budget`, excluded turns left out, rendered. */
export function packRecall(
  ledger: LedgerContext,
  ranked: readonly RankedCandidate[],
  budget: number,
  excluded: ReadonlySet<string> = new Set(),
): Retrieval {
  requireBudget(budget);
  let tokens = ledger.tokenCounter.countText(RECALL_HEADER) + 1;
  const days = new Set<string>();
  const chosen: RecalledTurn[] = [];
  const pieces: RetrievedPiece[] = [];
  for (const [rank, candidate] of ranked.filter((each) => !excluded.has(each.turn.id)).entries()) {
    const day = new Date(candidate.turn.timestamp).toISOString().slice(0, 10);
    const cost = candidate.cost + (days.has(day) ? 0 : datedLineTokens(ledger.tokenCounter, candidate.turn.timestamp));
    if (tokens + cost > budget) continue;
    tokens += cost;
    days.add(day);
    chosen.push({ turn: candidate.turn, depth: candidate.depth });
    pieces.push({ turnIds: [candidate.turn.id], rank, text: '', tokens: cost });
  }
  if (chosen.length === 0) return EMPTY;
  // Costs were counted per line with slack; the block is measured as it will be sent.
  let text = renderRecalled(chosen);
  let measured = ledger.tokenCounter.countText(text);
  while (measured > budget && chosen.length > 0) {
    chosen.pop();
    pieces.pop();
    text = renderRecalled(chosen);
    measured = ledger.tokenCounter.countText(text);
  }
  if (chosen.length === 0) return EMPTY;
  return { pieces, text, tokens: measured };
}

const EMPTY: Retrieval = { pieces: [], text: '', tokens: 0 };

function requireBudget(budget: unknown): number {
  if (typeof budget !== 'number' || !(budget >= 0)) {
    throw new InvalidInputError(`budgetTokens must be a number of tokens, 0 or more; got ${String(budget)}.`, 'budgetTokens');
  }
  return budget;
}

/** Where recall reads: the line's segments up to the turn it answers at. */
interface RecallLine {
  store: StoreOperations;
  /** The matches' rows, read once for the whole ranking. */
  rows: TurnRowReader;
  segments: readonly ChainSegment[];
  atDepth: number;
}

/** The matches and the turns beside them, each valued (a neighbour at a share of its match). */
async function withNeighbours(
  recallLine: RecallLine,
  scores: ReadonlyMap<string, number>,
  tuning: Required<RecallTuning>,
): Promise<Map<string, Candidate>> {
  const rows = await recallLine.rows.read([...scores.keys()]);
  const candidates = new Map<string, Candidate>();
  const offer = (row: StoredTurn, value: number) => {
    const known = candidates.get(row.id);
    if (!known || known.value < value) candidates.set(row.id, { row, value });
  };
  for (const [id, score] of scores) {
    const row = rows.get(id);
    if (row) offer(row, score);
  }
  if (tuning.neighbours <= 0) return candidates;
  const best = [...scores].sort((left, right) => right[1] - left[1]);
  const bringing = tuning.neighbourMatches > 0 ? best.slice(0, tuning.neighbourMatches) : best;
  const line = await normalTurnsNear(
    recallLine,
    bringing.flatMap(([id]) => rows.get(id)?.depth ?? []),
    tuning.neighbours,
  );
  const position = new Map(line.map((row, index) => [row.id, index]));
  for (const [id, score] of bringing) {
    const index = position.get(id);
    if (index === undefined) continue;
    const depth = (line[index] as StoredTurn).depth;
    for (let step = 1; step <= tuning.neighbours; step += 1) {
      for (const neighbour of [line[index - step], line[index + step]]) {
        // Only turns that are next to each other on the line: a gap means a turn was not read.
        if (neighbour && Math.abs(neighbour.depth - depth) <= step + COMPACTIONS_BETWEEN) {
          const ratio = tuning.neighbourLengthRatio;
          const match = line[index] as StoredTurn;
          const length = ratio > 0 ? Math.min(1, (ratio * Math.max(1, match.tokenCount)) / Math.max(1, neighbour.tokenCount)) : 1;
          offer(neighbour, score * tuning.neighbourShare ** step * length);
        }
      }
    }
  }
  return candidates;
}

/** Compactions that may sit between two neighbouring turns (one per threshold crossing). */
const COMPACTIONS_BETWEEN = 2;

/**
 * Wanted depths this close are read as one range. Ranges cost nothing apart (one call reads them
 * all), so only touching ones join: every row read beyond the wanted ones is decoded for nothing.
 */
const READ_GAP = 1;

/**
 * The normal turns within `reach` (plus room for compactions) of any of `depths` on the line, never
 * past `atDepth`, oldest first: one store call for every cluster of matches, whatever the line's
 * length or the number of matches (a call per cluster was 20 round trips for a common word).
 */
async function normalTurnsNear(
  { store, segments, atDepth }: Omit<RecallLine, 'rows'>,
  depths: readonly number[],
  reach: number,
): Promise<StoredTurn[]> {
  const wanted = new Set<number>();
  for (const depth of depths) {
    for (let offset = -(reach + COMPACTIONS_BETWEEN); offset <= reach + COMPACTIONS_BETWEEN; offset += 1) {
      const near = depth + offset;
      if (near >= 0 && near <= atDepth) wanted.add(near);
    }
  }
  const ranges: ChainRange[] = [];
  for (const segment of segments) {
    const mine = [...wanted]
      .filter((depth) => depth >= segment.fromDepth && depth <= segment.toDepth)
      .sort((left, right) => left - right);
    for (const depth of mine) {
      const last = ranges.at(-1);
      if (last && last.sessionId === segment.sessionId && depth - last.toDepth <= READ_GAP) last.toDepth = depth;
      else ranges.push({ sessionId: segment.sessionId, fromDepth: depth, toDepth: depth });
    }
  }
  const rows = ranges.length === 0 ? [] : await store.chainRanges(ranges);
  return rows.filter((row) => wanted.has(row.depth) && row.turnType === 'normal').sort((left, right) => left.depth - right.depth);
}

function definedOnly(options: RecallTuning): RecallTuning {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as RecallTuning;
}
