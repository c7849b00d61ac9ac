// The search benchmark's own flags, taken out of the command line before the rest goes to parseBenchArguments.

import { UsageError } from './args.ts';
import { DEFAULT_SEARCH_SIZES, QUICK_SEARCH_SIZES, SEARCH_DEADLINE_MS } from './search-benchmark.ts';

export const SEARCH_USAGE = `
  --search-sizes LIST   history sizes of the search benchmark, in turns (and as many events), or "none"
                        (default ${DEFAULT_SEARCH_SIZES.join(',')}; --quick: ${QUICK_SEARCH_SIZES.join(',')}; 10000,100000,1000000 took 6 minutes on 2 cores)
  --search-only         run only the search benchmark
  Search calls running past ${SEARCH_DEADLINE_MS / 1000} s are cut off, counted and recorded at ${SEARCH_DEADLINE_MS / 1000} s.
`;

/** Below this the history has not compacted its first half yet, so the summarized-only words are not summarized. */
const MINIMUM_SEARCH_SIZE = 5000;

export interface SearchArguments {
  /** Null: the default for the run (quick or not). Empty: no search benchmark. */
  sizes: number[] | null;
  only: boolean;
  /** The other arguments, for parseBenchArguments. */
  rest: string[];
}

function parseSearchSizes(text: string): number[] {
  if (text.trim() === 'none') return [];
  const sizes = text.split(',').map((part) => {
    const cleaned = part.trim().replaceAll('_', '');
    const size = Number(cleaned);
    if (cleaned === '' || !Number.isInteger(size) || size < MINIMUM_SEARCH_SIZE) {
      throw new UsageError(
        `--search-sizes takes whole numbers of turns of at least ${MINIMUM_SEARCH_SIZE}, or "none"; got "${part}".`,
      );
    }
    return size;
  });
  return [...new Set(sizes)].sort((left, right) => left - right);
}

export function extractSearchArguments(argv: readonly string[]): SearchArguments {
  const rest: string[] = [];
  let sizes: number[] | null = null;
  let only = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inlineValue] = argument.includes('=') ? argument.split(/=(.*)/s, 2) : [argument, undefined];
    if (flag === '--search-sizes') {
      const value = inlineValue ?? argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError('--search-sizes needs a value.');
      if (inlineValue === undefined) index += 1;
      sizes = parseSearchSizes(value);
    } else if (flag === '--search-only') {
      only = true;
    } else {
      rest.push(argument);
    }
  }
  return { sizes, only, rest };
}

export function searchSizesFor(search: SearchArguments, quick: boolean): number[] {
  return search.sizes ?? (quick ? QUICK_SEARCH_SIZES : DEFAULT_SEARCH_SIZES);
}
