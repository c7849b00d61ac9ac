// A small deterministic pseudo-random generator (mulberry32), so every run benchmarks the same conversation.

export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [minimum, maximum], both included. */
  integer(minimum: number, maximum: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const integer = (minimum: number, maximum: number): number => minimum + Math.floor(next() * (maximum - minimum + 1));
  return {
    next,
    integer,
    pick: <T>(items: readonly T[]): T => {
      const item = items[integer(0, items.length - 1)];
      if (item === undefined) throw new Error('pick() needs a non-empty list');
      return item;
    },
    chance: (probability) => next() < probability,
  };
}
