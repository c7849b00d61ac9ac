// "Did you mean": the closest of the known words to a mistyped one, by edit distance, when it is
// close enough to be what the person meant (a typo, not another word).

/** Levenshtein distance between two words. */
export function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = (previous[column - 1] as number) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] as number) + 1, (current[column - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] as number;
}

/** The known word nearest to `typed`, when at most a third of it (and at least one letter) differs. */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(typed.toLowerCase(), word.toLowerCase());
    if (!best || distance < best.distance) best = { word, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(typed.length, best.word.length) / 3));
  return best.distance <= allowed ? best.word : undefined;
}
