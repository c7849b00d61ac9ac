// Guards the layering in DESIGN.md: dependencies point one way (apps → ledgers → db / forest /
// summarizers → core), no package reaches into another's files (by name or by relative path), each
// package's exports map is real, and the store seam holds (issue 14): only the SQLite store knows
// the driver, and nothing above packages/db knows a table.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED: Record<string, string[]> = {
  core: [],
  db: ['core'],
  summarizers: ['core'],
  forest: ['core'],
  'events-ledger': ['core', 'db'],
  'agents-ledger': ['core', 'db', 'summarizers', 'forest'],
  runtime: ['core', 'summarizers', 'agents-ledger', 'events-ledger'],
  transcripts: ['core', 'agents-ledger'],
  server: ['core', 'agents-ledger', 'events-ledger'],
  cli: ['core', 'db', 'summarizers', 'forest', 'agents-ledger', 'events-ledger', 'runtime', 'transcripts', 'server'],
  // Test infrastructure: a loopback Messages API server. It depends on nothing; only tests use it.
  'loopback-api': [],
};
const TEST_ONLY = ['loopback-api'];
// The agents ledger owns the turn → event link: its tests make real events to cite. The runtime's
// tests make databases on the run's PostgreSQL server (@nexus/db/testing).
const TEST_ALSO: Record<string, string[]> = { 'agents-ledger': ['events-ledger'], runtime: ['db'] };
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
      const declared = Object.keys(manifest.dependencies ?? {}).filter((dependency) => dependency.startsWith('@nexus/'));
      const declaredForTests = [...declared, ...Object.keys(manifest.devDependencies ?? {})];
      for (const file of sourceFiles(folder)) {
        const allowedHere = isTestFile(file) ? [...(allowed ?? []), ...TEST_ONLY, ...(TEST_ALSO[name] ?? [])] : allowed;
        const declaredHere = isTestFile(file) ? declaredForTests : declared;
        const text = readFileSync(file, 'utf8');
        for (const specifier of importSpecifiers(text).filter((found) => found.startsWith('@nexus/'))) {
          const [, target, ...deeper] = specifier.split('/');
          // A test may use an entry a package exports for tests (`@nexus/db/testing`); nothing else
          // reaches past a package's main entry.
          const testEntry =
            isTestFile(file) && deeper.length > 0 && exportsOf(target as string).includes(`./${deeper.join('/')}`);
          if (!testEntry) expect(deeper, `${path.relative(root, file)} reaches into ${specifier}`).toEqual([]);
          expect(allowedHere, `${path.relative(root, file)} imports ${specifier}`).toContain(target);
          expect(declaredHere, `${name}/package.json must declare @nexus/${target}`).toContain(`@nexus/${target}`);
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
      expect(outside, 'import another package by its name (@nexus/…), declared in package.json').toEqual([]);
    });

    it(`${name} exports map points at files that exist`, () => {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8'));
      for (const target of Object.values(manifest.exports ?? {}) as string[]) {
        expect(existsSync(path.join(folder, target)), `${name} exports ${target}`).toBe(true);
      }
    });
  }
});

// The store seam (packages/db/src/store/ledger-store.ts): the ledgers, the CLI, the server and the
// scripts go through LedgerStore; only its engines (packages/db/src/sqlite/, packages/db/src/postgres/)
// know their driver and drizzle, and nothing outside packages/db knows what the tables are called.
describe('the store seam', () => {
  const DRIVERS = /^(better-sqlite3|drizzle-orm|pg)(\/|$)/;
  const TABLE = /\b(agent_turns|agent_sessions|turn_events|events_fts|turns_fts|compactions_fts|forest_\w*|transcript_\w*)/;
  const ENGINES = ['packages/db/src/sqlite/', 'packages/db/src/postgres/'];
  // Excepted: tests (which may corrupt a ledger on purpose through the driver, as another program
  // would) and the benchmark's raw baselines (a prepared INSERT with no ledger, the yardstick the
  // ledger's own appends are measured against).
  const BENCH_BASELINES = /^scripts\/bench\/raw-[\w-]+\.ts$/;
  // Also excepted: the test-only entry `@nexus/db/testing` (a raw connection for tests, as above)
  // and setup, which checks that the native driver built.
  const DRIVER_ALLOWED = ['packages/db/src/testing.ts', 'scripts/setup.mjs'];
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
    expect(offenders, 'go through LedgerStore (@nexus/db) instead').toEqual([]);
  });

  // A package's test entries (exports other than `.`, e.g. core's hostile queries) may name tables.
  const TEST_ENTRIES = new Set(
    packageFolders().flatMap(({ folder }) =>
      Object.entries(JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).exports ?? {})
        .filter(([entry]) => entry !== '.')
        .map(([, target]) => relative(path.join(folder, target as string))),
    ),
  );

  it('no package src outside packages/db names a table (comments included: they go stale)', () => {
    const offenders: string[] = [];
    for (const file of packageSources) {
      if (relative(file).startsWith('packages/db/') || TEST_ENTRIES.has(relative(file))) continue;
      for (const [index, line] of readFileSync(file, 'utf8').split('\n').entries()) {
        const table = TABLE.exec(line)?.[1];
        if (table) offenders.push(`${relative(file)}:${index + 1} names ${table}`);
      }
    }
    expect(offenders, "a table is the store's business: add a store operation").toEqual([]);
  });

  it('scripts use the packages through their public entries only', () => {
    // A package's entries are the files its exports map names (src/index.ts, and src/testing.ts for db).
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
