// Remembers the sentences a summary already keeps, so a fact restated in a later turn is not paid for twice.

/** Word-set Jaccard similarity above which a sentence only restates a kept one. */
export const NEAR_DUPLICATE_THRESHOLD = 0.8;
// Only input written with a few dozen distinct words shares its rarest words with this many kept
// sentences; the cap keeps such input linear at the cost of a missed duplicate.
const MAX_COMPARISONS = 32;

/**
 * Numbers words so that a smaller number is a rarer word: numbers compare faster than strings, and
 * rarest-first order is what the index probes with. Words of equal frequency keep the order they
 * first appeared in, so the numbering is deterministic.
 */
export class WordNumbering {
  private readonly numberOf = new Map<string, number>();

  constructor(frequencies: ReadonlyMap<string, number>) {
    // A counting sort by frequency: linear in the vocabulary, which can run to hundreds of thousands of words.
    const countsByFrequency: number[] = [];
    for (const frequency of frequencies.values()) countsByFrequency[frequency] = (countsByFrequency[frequency] ?? 0) + 1;
    const nextNumberByFrequency: number[] = [];
    let next = 0;
    for (let frequency = 0; frequency < countsByFrequency.length; frequency += 1) {
      nextNumberByFrequency[frequency] = next;
      next += countsByFrequency[frequency] ?? 0;
    }
    for (const [term, frequency] of frequencies) {
      const number = nextNumberByFrequency[frequency] ?? 0;
      this.numberOf.set(term, number);
      nextNumberByFrequency[frequency] = number + 1;
    }
  }

  /** The distinct `terms` as numbers, rarest first. */
  wordSet(terms: readonly string[]): Int32Array {
    return Int32Array.from(terms, (term) => this.numberOf.get(term) ?? -1).sort();
  }
}

/**
 * Kept sentences indexed by word. A sentence is compared only with kept sentences that share one of
 * its rarest words: two sets with Jaccard similarity above t share more than t·|A| of A's words, so
 * any |A| - ceil(t·|A|) + 1 of them must include a shared one.
 */
export class NearDuplicateIndex {
  private readonly keptWordSets: Int32Array[] = [];
  private readonly keptByWord = new Map<number, number[]>();
  /** The check that last compared each kept sentence, so one check compares it once. */
  private readonly lastCheck: number[] = [];
  private checks = 0;

  constructor(private readonly threshold: number = NEAR_DUPLICATE_THRESHOLD) {}

  /** `words` come from `WordNumbering.wordSet`. */
  isNearDuplicate(words: Int32Array): boolean {
    const size = words.length;
    if (size === 0) return false;
    const probeLength = size - Math.ceil(this.threshold * size) + 1;
    // Sets whose sizes differ by more than the threshold allows cannot be similar enough.
    const smallest = this.threshold * size;
    const largest = size / this.threshold;
    this.checks += 1;
    let comparisons = 0;
    for (let probe = 0; probe < probeLength; probe += 1) {
      for (const keptIndex of this.keptByWord.get(words[probe] as number) ?? []) {
        if (this.lastCheck[keptIndex] === this.checks) continue;
        this.lastCheck[keptIndex] = this.checks;
        comparisons += 1;
        if (comparisons > MAX_COMPARISONS) return false;
        const kept = this.keptWordSets[keptIndex] as Int32Array;
        if (kept.length < smallest || kept.length > largest) continue;
        if (jaccard(words, kept) > this.threshold) return true;
      }
    }
    return false;
  }

  add(words: Int32Array): void {
    const keptIndex = this.keptWordSets.length;
    this.keptWordSets.push(words);
    this.lastCheck.push(0);
    for (const word of words) {
      const postings = this.keptByWord.get(word);
      if (postings) postings.push(keptIndex);
      else this.keptByWord.set(word, [keptIndex]);
    }
  }
}

/** Both arrays ascending and free of repeats. */
function jaccard(left: Int32Array, right: Int32Array): number {
  let shared = 0;
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length && rightIndex < right.length) {
    const leftWord = left[leftIndex] as number;
    const rightWord = right[rightIndex] as number;
    if (leftWord === rightWord) {
      shared += 1;
      leftIndex += 1;
      rightIndex += 1;
    } else if (leftWord < rightWord) leftIndex += 1;
    else rightIndex += 1;
  }
  return shared / (left.length + right.length - shared);
}
