// Parses the bench command line: --sizes, --quick, --json, --db.

export const DEFAULT_SIZES = [1_000, 10_000, 100_000];
export const QUICK_SIZES = [1_000, 10_000];

export interface BenchArguments {
  /** History sizes in turns, ascending, without duplicates. */
  sizes: number[];
  quick: boolean;
  /** Where to write the JSON report, if anywhere. */
  jsonPath: string | null;
  /** A postgres:// URL: run on PostgreSQL, in fresh databases made on that server. Null: SQLite files. */
  db: string | null;
  help: boolean;
}

export const USAGE = `Usage: pnpm bench [--sizes 1000,10000,100000] [--quick] [--json FILE] [--db postgres://…]

  --sizes LIST   history sizes in turns, comma-separated (default ${DEFAULT_SIZES.join(',')}; --quick: ${QUICK_SIZES.join(',')})
  --quick        smaller default sizes and fewer append rounds (under a minute)
  --json FILE    also write the machine description and every result as JSON to FILE
  --db URL       run on PostgreSQL instead of SQLite files: URL (postgres://user@host:port/db) names a database on
                 the server; the bench makes a fresh database next to it for every history and store it measures
                 (nexus_bench_<pid>_…; the user must be allowed to CREATE DATABASE) and drops them at the end. Appends
                 and events are set against raw \`pg\` inserts, plus appends from 4 concurrent clients
  --help         print this text
`;

export class UsageError extends Error {}

function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => {
    const cleaned = part.trim().replaceAll('_', '');
    const size = Number(cleaned);
    if (cleaned === '' || !Number.isInteger(size) || size < 10) {
      throw new UsageError(`--sizes takes whole numbers of turns of at least 10, got "${part}".`);
    }
    return size;
  });
  return [...new Set(sizes)].sort((left, right) => left - right);
}

export function parseBenchArguments(argv: readonly string[]): BenchArguments {
  let sizes: number[] | null = null;
  let quick = false;
  let jsonPath: string | null = null;
  let db: string | null = null;
  let help = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    const [flag, inlineValue] = argument.includes('=') ? argument.split(/=(.*)/s, 2) : [argument, undefined];
    const takeValue = (): string => {
      if (inlineValue !== undefined) return inlineValue;
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value.`);
      index += 1;
      return value;
    };
    switch (flag) {
      case '--sizes':
        sizes = parseSizes(takeValue());
        break;
      case '--quick':
        quick = true;
        break;
      case '--json':
        jsonPath = takeValue();
        break;
      case '--db': {
        const value = takeValue();
        if (!/^postgres(ql)?:\/\//i.test(value)) throw new UsageError(`--db takes a postgres:// URL, got "${value}".`);
        db = value;
        break;
      }
      case '--help':
        help = true;
        break;
      case '--':
        break;
      default:
        throw new UsageError(`Unknown argument "${argument}".`);
    }
  }
  return { sizes: sizes ?? (quick ? QUICK_SIZES : DEFAULT_SIZES), quick, jsonPath, db, help };
}
