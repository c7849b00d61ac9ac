// Recall's lexical stage: each turn on a line that matches a query, with a score relative to the
// best match (1 = best). bm25 on the query's content words (any of them), the speakers the query
// names valued up (speaker-terms.ts), and optionally pseudo-relevance feedback. Neighbours, vectors
// and packing are left to recall-turns.ts.

import type { StoredTurn } from '@agent-ledger/store';
import type { LedgerContext } from '../ledger-context.ts';
import type { ChainSegment } from '../store/chain.ts';
import type { TurnRowReader } from '../store/turns-by-id.ts';
import { type NamedDate, namedDates } from './date-terms.ts';
import { indexedTurns, type LineMatch, matchOnLine, turnsHolding } from './line-matches.ts';
import { feedbackTerms } from './query-terms.ts';
import { splitSpeakerTerms } from './speaker-terms.ts';

export interface LexicalTuning {
  /** Ranked matches considered. */
  candidates: number;
  /** Leave out matches under this fraction of the best one's score (0–1). */
  minRelevance: number;
  /** A named speaker's own turn is worth (1 + this) times its match (0: names are plain words). */
  speakerWeight: number;
  /** The best match among the turns said on a date the query names gains this much (0: dates are plain words). */
  dateWeight: number;
  feedbackTerms: number;
  feedbackFrom: number;
  feedbackWeight: number;
}

export interface LexicalRequest {
  segments: readonly ChainSegment[];
  /** The query as written (dates are read from it). */
  query: string;
  /** The query's content words (query-terms.ts). */
  terms: readonly string[];
  tuning: LexicalTuning;
  /** Turns feedback does not read from (already in the context). */
  excluded: ReadonlySet<string>;
  /** Where the matches' rows are read, shared with the rest of the ranking (each row read once). */
  rows: TurnRowReader;
}

/** The matches read to learn who speaks on the line: a two-person chat shows both in a few. */
const SPEAKER_SAMPLE = 40;

/** Matches of the query on the line, best first, each scored relative to the best. */
export async function lexicalScores(ledger: LedgerContext, request: LexicalRequest): Promise<Map<string, number>> {
  const { segments, tuning } = request;
  const limit = Math.min(500, Math.max(1, tuning.candidates));
  const search = (words: readonly string[], within?: NamedDate) => matchOnLine(ledger, { segments, words, limit, within });
  const dates = tuning.dateWeight > 0 ? namedDates(request.query) : [];
  let terms = withoutDateWords(request.terms, dates);
  const first = await search(terms);
  const speakers = tuning.speakerWeight > 0 ? await namedSpeakers(request.rows, first, terms) : null;
  if (speakers) terms = speakers.topicTerms;
  let scores = relative(speakers ? await search(terms) : first, tuning.minRelevance);
  // The day's own best match is what the question asks about, however weak it is line-wide.
  for (const date of dates) {
    for (const [id, share] of relative(await search(terms, date), 0)) {
      scores.set(id, (scores.get(id) ?? 0) + tuning.dateWeight * share);
    }
  }
  // Best first again: feedback reads the first matches.
  if (dates.length > 0) scores = new Map([...scores].sort((left, right) => right[1] - left[1]));
  if (speakers) scores = await speakersValuedUp(request.rows, scores, speakers.named, tuning.speakerWeight);
  if (tuning.feedbackTerms > 0 && scores.size > 0) scores = await withFeedback(ledger, { ...request, terms }, scores);
  return scores;
}

/** The query's terms without the words its dates are written in, unless nothing else is left. */
function withoutDateWords(terms: readonly string[], dates: readonly NamedDate[]): readonly string[] {
  const dateWords = new Set(dates.flatMap((date) => date.words));
  const rest = terms.filter((term) => !dateWords.has(term));
  return rest.length > 0 ? rest : terms;
}

/** The speakers the query names among the authors of its first matches; null when it names none. */
async function namedSpeakers(reader: TurnRowReader, matches: readonly LineMatch[], terms: readonly string[]) {
  // Every match is read (the ranking reads them next anyway: one store call), the first few asked who speaks.
  const rows = await reader.read(matches.map((match) => match.turnId));
  const sample = matches.slice(0, SPEAKER_SAMPLE).map((match) => rows.get(match.turnId));
  const authors = new Set(sample.map(authorOf).filter((author): author is string => author !== null));
  const split = splitSpeakerTerms(terms, authors);
  return split.named.size > 0 ? split : null;
}

/** A named speaker's own turns worth (1 + weight) times their score, best first again. */
async function speakersValuedUp(
  reader: TurnRowReader,
  scores: ReadonlyMap<string, number>,
  named: ReadonlySet<string>,
  weight: number,
): Promise<Map<string, number>> {
  const rows = await reader.read([...scores.keys()]);
  const valued = [...scores].map(([id, score]): [string, number] => {
    const author = authorOf(rows.get(id));
    return [id, author !== null && named.has(author) ? score * (1 + weight) : score];
  });
  return new Map(valued.sort((left, right) => right[1] - left[1]));
}

function authorOf(row: StoredTurn | undefined): string | null {
  const author = (row?.metadata as Record<string, unknown> | null | undefined)?.author;
  return typeof author === 'string' && author.trim() !== '' ? author.trim() : null;
}

/** Pseudo-relevance feedback: the first matches' strongest words search again, merged at a weight. */
async function withFeedback(
  ledger: LedgerContext,
  request: LexicalRequest,
  scores: ReadonlyMap<string, number>,
): Promise<Map<string, number>> {
  const { segments, terms, tuning, excluded } = request;
  const limit = Math.min(500, Math.max(1, tuning.candidates));
  const first = [...scores.keys()].filter((id) => !excluded.has(id)).slice(0, tuning.feedbackFrom);
  const rows = await request.rows.read(first);
  const added = await feedbackTerms({
    texts: first.map((id) => rows.get(id)?.searchText ?? ''),
    queryTerms: terms,
    count: tuning.feedbackTerms,
    turnsHolding: (term) => turnsHolding(ledger, term),
    totalTurns: await indexedTurns(ledger),
  });
  const merged = new Map(scores);
  if (added.length === 0) return merged;
  const second = relative(await matchOnLine(ledger, { segments, words: [...terms, ...added], limit }), tuning.minRelevance);
  for (const [id, score] of second) merged.set(id, (merged.get(id) ?? 0) + tuning.feedbackWeight * score);
  return merged;
}

/** Each match's score as a share of the best one's (1 = best), those under the floor left out. */
export function relative(matches: readonly LineMatch[], floor: number): Map<string, number> {
  const best = matches[0]?.score ?? 0;
  const scores = new Map<string, number>();
  for (const match of matches) {
    const share = best > 0 ? match.score / best : 1;
    if (share >= floor) scores.set(match.turnId, share);
  }
  return scores;
}
