// Guards the layering in DESIGN.md: dependencies point one way (apps → ledgers → store / forest /
// summarizers → core; each store engine → store), no package reaches into another's files (by name
// or by relative path), each package's exports map is real, and the store seam holds (issues 14,
// 23): only the engines know their driver, and nothing outside an engine knows a table.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allShapeProblems } from './code-shape.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED: Record<string, string[]> = {
  core: [],
  store: ['core'],
  'store-sqlite': ['core', 'store'],
  'store-postgres': ['core', 'store'],
  summarizers: ['core'],
  embeddings: ['core'],
  forest: ['core'],
  'events-ledger': ['core', 'store'],
  'agents-ledger': ['core', 'store', 'summarizers', 'forest'],
  'runtime-kit': ['core', 'agents-ledger'],
  'ai-sdk': ['core', 'agents-ledger', 'runtime-kit'],
  'openai-agents': ['core', 'agents-ledger', 'runtime-kit'],
  runtime: ['core', 'summarizers', 'agents-ledger', 'events-ledger', 'runtime-kit'],
  transcripts: ['core', 'store', 'agents-ledger'],
  server: ['core', 'agents-ledger', 'events-ledger'],
  cli: [
    'core',
    'store',
    'summarizers',
    'embeddings',
    'forest',
    'agents-ledger',
    'events-ledger',
    'runtime-kit',
    'runtime',
    'transcripts',
    'server',
  ],
  // Test infrastructure: a loopback Messages API server. It depends on nothing; only tests use it.
  'loopback-api': [],
};
const TEST_ONLY = ['loopback-api'];
// The agents ledger owns the turn → event link: its tests make real events to cite. Tests open a
// raw SQLite file or make databases on the run's PostgreSQL server through the engines' test
// entries (@agent-ledger/store-sqlite/testing, @agent-ledger/store-postgres/testing).
const ENGINE_TESTING = ['store-sqlite', 'store-postgres'];
const TEST_ALSO: Record<string, string[]> = {
  // An embedder is tested inside a real ledger (a SQLite file).
  embeddings: ['agents-ledger', ...ENGINE_TESTING],
  'agents-ledger': ['events-ledger', ...ENGINE_TESTING],
  'events-ledger': ENGINE_TESTING,
  runtime: ENGINE_TESTING,
  'runtime-kit': ENGINE_TESTING,
  'ai-sdk': ENGINE_TESTING,
  'openai-agents': ENGINE_TESTING,
  transcripts: ENGINE_TESTING,
  server: ENGINE_TESTING,
  cli: ENGINE_TESTING,
};
// A store location names its engine, so the store package loads the engine's package by name, upward
// (an optional peer dependency: the application installs the engine it uses). Only there.
const PLUGIN_LOADS: Record<string, string[]> = { 'packages/store/src/load-engine.ts': ['store-sqlite', 'store-postgres'] };
/** Apps shipped as a bundle (scripts/build-cli.mjs): what they import is compiled in, not installed. */
const BUNDLED = ['cli'];
/** Entries made for tests only: no package's src imports them. */
const TEST_ENTRY_NAMES = ['testing', 'contract'];
const isTestFile = (file: string) => /\.test\.ts$|[\\/]test[\\/]/.test(file);

function packageFolders(): Array<{ name: string; folder: string }> {
  return ['packages', 'apps'].flatMap((parent) =>
    readdirSync(path.join(root, parent)).map((name) => ({ name, folder: path.join(root, parent, name) })),
  );
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' || entry === 'dist' ? [] : sourceFiles(full);
    return /\.(ts|mts|mjs)$/.test(full) ? [full] : [];
  });
}

/** Every module a file imports: static and type imports, re-exports, dynamic import(), require(). */
function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom|^\s*import|\bimport\s*\(|\brequire\s*\()\s*['"]([^'"]+)['"]/gm)) {
    found.push(match[1] as string);
  }
  return found;
}

/** The entries a workspace package exports (`.`, `./testing`…), by its short name. */
function exportsOf(name: string): string[] {
  const folder = packageFolders().find((candidate) => candidate.name === name)?.folder;
  if (!folder) return [];
  return Object.keys(JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).exports ?? {});
}

const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');

describe('package layering', () => {
  for (const { name, folder } of packageFolders()) {
    it(`${name} imports only the packages below it, through their public entry`, () => {
      const allowed = ALLOWED[name];
      expect(allowed, `add ${name} to ALLOWED with the packages it may use`).toBeDefined();
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      const declared = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((dependency) =>
        dependency.startsWith('@agent-ledger/'),
      );
      const declaredForTests = [...declared, ...Object.keys(manifest.devDependencies ?? {})];
      // The CLI ships as one bundle: the packages it is built from are build-time (dev) dependencies.
      if (BUNDLED.includes(name)) declared.push(...declaredForTests);
      for (const file of sourceFiles(folder)) {
        const allowedHere = isTestFile(file)
          ? [...(allowed ?? []), ...TEST_ONLY, ...(TEST_ALSO[name] ?? [])]
          : [...(allowed ?? []), ...(PLUGIN_LOADS[relative(file)] ?? [])];
        const declaredHere = isTestFile(file) ? declaredForTests : declared;
        const text = readFileSync(file, 'utf8');
        for (const specifier of importSpecifiers(text).filter((found) => found.startsWith('@agent-ledger/'))) {
          const [, target, ...deeper] = specifier.split('/');
          // Past a package's main entry, only to another entry its exports map names: a test may use
          // the entries made for tests (`@agent-ledger/store-sqlite/testing`, `@agent-ledger/store/contract`),
          // source any other (`@agent-ledger/server/defaults`).
          const entry = `./${deeper.join('/')}`;
          const exported = deeper.length > 0 && exportsOf(target as string).includes(entry);
          const forTests = TEST_ENTRY_NAMES.some((name) => entry.endsWith(`/${name}`));
          if (!exported || (forTests && !isTestFile(file)))
            expect(deeper, `${path.relative(root, file)} reaches into ${specifier}`).toEqual([]);
          expect(allowedHere, `${path.relative(root, file)} imports ${specifier}`).toContain(target);
          expect(declaredHere, `${name}/package.json must declare @agent-ledger/${target}`).toContain(`@agent-ledger/${target}`);
        }
      }
    });

    it(`${name} reaches no other package by relative path (src and tests)`, () => {
      const outside: string[] = [];
      for (const file of sourceFiles(folder)) {
        for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
          if (!specifier.startsWith('.')) continue;
          const target = path.resolve(path.dirname(file), specifier);
          if (path.relative(folder, target).startsWith('..')) outside.push(`${relative(file)} imports ${specifier}`);
        }
      }
      expect(outside, 'import another package by its name (@agent-ledger/…), declared in package.json').toEqual([]);
    });

    it(`${name} exports map points at files that exist`, () => {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      for (const target of Object.values(manifest.exports ?? {}) as string[]) {
        expect(existsSync(path.join(folder, target)), `${name} exports ${target}`).toBe(true);
      }
    });
  }
});

// The store seam (packages/store/src/ledger-store.ts): the ledgers, the CLI, the server and the
// scripts go through LedgerStore; only its engines (packages/store-sqlite/, packages/store-postgres/)
// know their driver and drizzle, and nothing outside them knows what the tables are called.
describe('the store seam', () => {
  const DRIVERS = /^(better-sqlite3|drizzle-orm|pg)(\/|$)/;
  const TABLE =
    /\b(agent_turns|agent_sessions|turn_events|events_fts|turns_fts|compactions_fts|forest_\w*|transcript_(?:sources|lines|positions))/;
  const ENGINES = ['packages/store-sqlite/src/', 'packages/store-postgres/src/'];
  // Excepted: tests (which may corrupt a ledger on purpose through the driver, as another program
  // would) and the benchmark's raw baselines (a prepared INSERT with no ledger, the yardstick the
  // ledger's own appends are measured against).
  const BENCH_BASELINES = /^scripts\/bench\/raw-[\w-]+\.ts$/;
  // Also excepted: setup, which checks that the native driver built.
  const DRIVER_ALLOWED = ['scripts/setup.mjs'];
  const sourceOf = (folder: string) => sourceFiles(folder).filter((file) => !isTestFile(file));
  const packageSources = packageFolders().flatMap(({ folder }) =>
    existsSync(path.join(folder, 'src')) ? sourceOf(path.join(folder, 'src')) : [],
  );
  const scripts = sourceOf(path.join(root, 'scripts')).filter((file) => !BENCH_BASELINES.test(relative(file)));

  it('only the store engines import a database driver or drizzle (package src and scripts)', () => {
    const offenders: string[] = [];
    for (const file of [...packageSources, ...scripts]) {
      if (ENGINES.some((engine) => relative(file).startsWith(engine)) || DRIVER_ALLOWED.includes(relative(file))) continue;
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (DRIVERS.test(specifier)) offenders.push(`${relative(file)} imports ${specifier}`);
      }
    }
    expect(offenders, 'go through LedgerStore (@agent-ledger/store) instead').toEqual([]);
  });

  // A package's test entries (exports other than `.`, e.g. core's hostile queries) may name tables.
  const TEST_ENTRIES = new Set(
    packageFolders().flatMap(({ folder }) =>
      Object.entries(JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).exports ?? {})
        .filter(([entry]) => entry !== '.')
        .map(([, target]) => relative(path.join(folder, target as string))),
    ),
  );

  it('no package src outside the engines names a table (comments included: they go stale)', () => {
    const offenders: string[] = [];
    for (const file of packageSources) {
      if (ENGINES.some((engine) => relative(file).startsWith(engine)) || TEST_ENTRIES.has(relative(file))) continue;
      for (const [index, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        const table = TABLE.exec(line)?.[1];
        if (table) offenders.push(`${relative(file)}:${index + 1} names ${table}`);
      }
    }
    expect(offenders, "a table is the store's business: add a store operation").toEqual([]);
  });

  it('scripts use the packages through their public entries only', () => {
    // A package's entries are the files its exports map names (src/index.ts, and test entries such as src/testing.ts).
    const entries = new Set(
      packageFolders().flatMap(({ folder }) => {
        const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
        return (Object.values(manifest.exports ?? {}) as string[]).map((target) => relative(path.join(folder, target)));
      }),
    );
    const deep: string[] = [];
    for (const file of scripts) {
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(path.resolve(path.dirname(file), specifier));
        if (/^(packages|apps)\/[^/]+\/src\//.test(target) && !entries.has(target))
          deep.push(`${relative(file)} imports ${specifier}`);
      }
    }
    expect(deep, 'import an entry of the package (export what the script needs there)').toEqual([]);
  });
});

// The inside of each package (issue 27): the structural limits, no import circles, strategies that
// own both sides of the seam, and errors recognised by brand, not by prototype.
describe('inside the packages', () => {
  const packageSources = packageFolders().flatMap(({ folder }) =>
    existsSync(path.join(folder, 'src')) ? sourceFiles(path.join(folder, 'src')).filter((file) => !isTestFile(file)) : [],
  );

  it('no source file over 400 lines, no function over 80, none with more than four positional parameters', () => {
    expect(allShapeProblems(), 'split by concept (pnpm exec tsx scripts/code-shape.ts lists them)').toEqual([]);
  });

  it('no package imports itself in a circle (type imports included)', () => {
    const circles: string[] = [];
    for (const { folder } of packageFolders()) {
      const graph = new Map<string, string[]>();
      const files = existsSync(path.join(folder, 'src')) ? sourceFiles(path.join(folder, 'src')) : [];
      for (const file of files.filter((candidate) => !isTestFile(candidate))) {
        const relativeImports = importSpecifiers(readFileSync(file, 'utf8')).filter((specifier) => specifier.startsWith('.'));
        graph.set(
          file,
          relativeImports.map((specifier) => path.resolve(path.dirname(file), specifier)),
        );
      }
      circles.push(...findCircles(graph).map((circle) => circle.map(relative).join(' → ')));
    }
    expect(circles, 'move what both sides share into a module of its own').toEqual([]);
  });

  // A strategy's folder is the one place that names it; the engines name none (a compaction has a
  // forest when it has forest rows, and which strategies keep forests is the caller's to say).
  const STRATEGY_FOLDERS = ['packages/agents-ledger/src/strategies/'];
  const NAMES_A_STRATEGY = /['"`](union-find|flat)['"`]|\bstrategy\s*[!=]==?\s*['"`]/;
  it('no code in the ledgers or the store engines names a compaction strategy, outside its own folder', () => {
    const checked = packageSources.filter(
      (file) =>
        /^packages\/(agents-ledger|store|store-sqlite|store-postgres)\/src\//.test(relative(file)) &&
        !/\/src\/contract\//.test(relative(file)) &&
        !STRATEGY_FOLDERS.some((folder) => relative(file).startsWith(folder)),
    );
    expect(checked.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const file of checked) {
      for (const [index, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) continue;
        if (NAMES_A_STRATEGY.test(line)) offenders.push(`${relative(file)}:${index + 1}: ${line.trim()}`);
      }
    }
    expect(offenders, 'ask the strategy (its read side: renderSummary, contextSummary, forked, check)').toEqual([]);
  });

  it('no instanceof on a ledger error class outside the package that defines it (isInstance works across copies)', () => {
    const definedIn = new Map<string, string>();
    for (const { name, folder } of packageFolders()) {
      for (const file of sourceFiles(folder).filter((candidate) => !isTestFile(candidate))) {
        for (const match of readFileSync(file, 'utf8').matchAll(/export class (\w+Error) extends (\w+)/g))
          definedIn.set(match[1] as string, name);
      }
    }
    expect(definedIn.get('HeadConflictError')).toBe('core');
    const offenders: string[] = [];
    for (const { name, folder } of packageFolders()) {
      for (const file of sourceFiles(folder)) {
        for (const match of readFileSync(file, 'utf8').matchAll(/instanceof (\w+Error)\b/g)) {
          const owner = definedIn.get(match[1] as string);
          if (owner !== undefined && owner !== name) offenders.push(`${relative(file)}: instanceof ${match[1]}`);
        }
      }
    }
    expect(offenders, 'use ErrorClass.isInstance(error)').toEqual([]);
  });
});

/** Every circle in an import graph, each once, as the files around it. */
function findCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return circles;
}
