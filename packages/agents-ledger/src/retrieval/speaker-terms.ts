// Who a question names among the people on the line: pure functions over turns' author names.
// A personal chat's question names a speaker ("What martial arts has John done?"), but what John
// said rarely holds the word "John": it is the other speaker's greetings that do ("Hey John!").
// The index holds only the text (append-turn.ts), so recall matches by the other words and values
// the named speaker's own turns up instead (recall-turns.ts).

/** The lower-case words of each author's name, mapped to the authors they name. */
export function authorWords(authors: Iterable<string>): Map<string, Set<string>> {
  const words = new Map<string, Set<string>>();
  for (const author of authors) {
    for (const word of author.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
      if (word.length < 2) continue;
      const named = words.get(word) ?? new Set<string>();
      named.add(author);
      words.set(word, named);
    }
  }
  return words;
}

export interface SpeakerSplit {
  /** The authors the query's words name. */
  named: Set<string>;
  /** The query's other words: what the named speakers said is looked for by these. */
  topicTerms: string[];
}

/**
 * The query's terms split into the speakers they name and the rest. Roles are not names ("user",
 * "assistant" are ordinary words in a question), so only authors count; with no other word left
 * the names stay search terms.
 */
export function splitSpeakerTerms(terms: readonly string[], authors: Iterable<string>): SpeakerSplit {
  const words = authorWords(authors);
  const named = new Set<string>();
  const topicTerms: string[] = [];
  for (const term of terms) {
    const authorsNamed = words.get(possessiveStripped(term));
    if (authorsNamed === undefined) topicTerms.push(term);
    else for (const author of authorsNamed) named.add(author);
  }
  if (topicTerms.length === 0) return { named: new Set(), topicTerms: [...terms] };
  return { named, topicTerms };
}

/** "maria's" → "maria": the query's words keep inner apostrophes (WORD_PATTERN). */
function possessiveStripped(term: string): string {
  return term.replace(/['’]s$/u, '');
}
