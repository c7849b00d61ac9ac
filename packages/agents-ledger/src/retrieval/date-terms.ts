// The calendar dates a question names, as UTC time ranges: pure functions over text. "What did
// Maria start, as mentioned on 3 June, 2023?" asks about what was said that day; the index cannot
// match "june" to a turn said in June (it holds the text, not the time), so recall looks for the
// question's other words among that day's turns (lexical-scores.ts). Only absolute dates: a
// relative one ("last Tuesday") needs the question's own date, which a question replayed later
// does not have.

export interface NamedDate {
  /** First and last millisecond of the day or month named, UTC. */
  since: number;
  until: number;
  /** The query's words the date was written with (lower-case): not searched as words. */
  words: string[];
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;
const MONTH = `(${MONTHS.join('|')}|${MONTHS.map((month) => month.slice(0, 3)).join('|')})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';

/** Written forms, most specific first; each match's span is taken out before the next is tried. */
const FORMS: ReadonlyArray<{ pattern: RegExp; parts: (match: RegExpExecArray) => DateParts }> = [
  { pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/giu, parts: (m) => ({ year: m[1], month: Number(m[2]), day: m[3] }) },
  {
    pattern: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, 'giu'),
    parts: (m) => ({ year: m[3], month: monthNumber(m[2]), day: m[1] }),
  },
  {
    pattern: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, 'giu'),
    parts: (m) => ({ year: m[3], month: monthNumber(m[1]), day: m[2] }),
  },
  { pattern: new RegExp(`\\b${MONTH},?\\s+${YEAR}\\b`, 'giu'), parts: (m) => ({ year: m[2], month: monthNumber(m[1]) }) },
];

interface DateParts {
  year: string | undefined;
  month: number;
  day?: string | undefined;
}

/** The days and months `text` names, in order of appearance; nothing when it names none. */
export function namedDates(text: string): NamedDate[] {
  let rest = text.normalize('NFKC');
  const found: Array<{ at: number; date: NamedDate }> = [];
  for (const { pattern, parts } of FORMS) {
    for (const match of rest.matchAll(pattern)) {
      const date = toRange(parts(match as RegExpExecArray), match[0]);
      if (date) found.push({ at: match.index ?? 0, date });
    }
    // Blanked, not cut, so later forms neither match inside nor shift the positions.
    rest = rest.replace(pattern, (written) => ' '.repeat(written.length));
  }
  return found.sort((left, right) => left.at - right.at).map((entry) => entry.date);
}

function monthNumber(name: string | undefined): number {
  const short = (name ?? '').toLowerCase().slice(0, 3);
  return MONTHS.findIndex((month) => month.startsWith(short)) + 1;
}

function toRange({ year, month, day }: DateParts, written: string): NamedDate | null {
  const yearNumber = Number(year);
  const dayNumber = day === undefined ? null : Number(day);
  if (!(month >= 1 && month <= 12) || !(yearNumber >= 1000)) return null;
  if (dayNumber !== null) {
    const since = Date.UTC(yearNumber, month - 1, dayNumber);
    // 31 June is not a day: Date.UTC would roll it into July.
    if (new Date(since).getUTCDate() !== dayNumber) return null;
    return { since, until: since + DAY_MS - 1, words: wordsOf(written) };
  }
  return { since: Date.UTC(yearNumber, month - 1, 1), until: Date.UTC(yearNumber, month, 1) - 1, words: wordsOf(written) };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Its words, and the whole when the query's words keep it as one (2023-06-03: WORD_PATTERN's hyphens). */
function wordsOf(written: string): string[] {
  const lower = written.toLowerCase();
  return [lower, ...(lower.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word !== 'of')];
}
