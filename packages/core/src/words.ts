// Words and the words that carry no topic. Shared by the extractive summarizer (which sentences say
// something) and the forest's TF-IDF (which turns are about the same thing), so both agree on what
// a word is.

/** A word: letters, digits and underscores, joined by inner dots, apostrophes or hyphens (v16.2, don't, pg-dump). */
export const WORD_PATTERN = /[\p{L}\p{N}_]+(?:[.'’-][\p{L}\p{N}_]+)*/gu;

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him himself ' +
    'his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them themselves then there these they this ' +
    'those through to too under until up very was we were what when where which while who whom why will with would you your ' +
    "yours yourself yourselves i'm i've i'll i'd we're we've we'll you're you've you'll it's that's there's let's don't doesn't " +
    "didn't isn't aren't wasn't weren't can't couldn't won't wouldn't shouldn't haven't hasn't hadn't get got one like well " +
    'may might must shall us yes ok okay via per'
  ).split(' '),
);
