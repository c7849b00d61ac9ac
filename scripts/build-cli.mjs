#!/usr/bin/env node
// Builds `nexus` to plain JavaScript (apps/cli/dist): one esbuild bundle of the CLI and every
// workspace package it uses, split so that each command loads only its own code (`nexus --help`
// loads the argument parser and the command table, nothing else). better-sqlite3 (native) and pg
// stay external: they are the CLI package's only runtime dependencies. Files the code reads beside
// itself (migrations, the viewer, the demo conversation) are copied to where the bundle looks for
// them: `new URL('../viewer/', import.meta.url)` from dist/bin/*.js is dist/viewer.
// Usage: node scripts/build-cli.mjs [--quiet]

import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'apps', 'cli');
const dist = path.join(cli, 'dist');

/** What the bundle reads at run time, relative to dist/bin: where each package's source reads it. */
const ASSETS = [
  ['packages/store-sqlite/drizzle-sqlite', 'drizzle-sqlite'],
  ['packages/store-postgres/drizzle-postgres', 'drizzle-postgres'],
  ['packages/server/viewer', 'viewer'],
  ['apps/cli/src/demo/conversation.json', 'demo/conversation.json'],
];

export async function buildCli() {
  // Built beside the old one and swapped in, so a CLI started meanwhile (by another test run) never
  // finds an empty folder.
  const staging = `${dist}.build-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { nexus: path.join(cli, 'src', 'bin.ts') },
    outdir: path.join(staging, 'bin'),
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'pg-native'],
    // Bundled CommonJS dependencies call require() for Node's builtins; ESM has no require.
    banner: {
      js: "import { createRequire as __nexusRequire } from 'node:module'; const require = __nexusRequire(import.meta.url);",
    },
    minify: true,
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
  });
  for (const [from, to] of ASSETS) {
    mkdirSync(path.dirname(path.join(staging, to)), { recursive: true });
    cpSync(path.join(root, from), path.join(staging, to), { recursive: true });
  }
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(staging, dist);
  rmSync(old, { recursive: true, force: true });
  return result;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const started = performance.now();
  try {
    const result = await buildCli();
    if (!process.argv.includes('--quiet')) {
      const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
      const files = Object.keys(result.metafile.outputs).length;
      console.error(
        `built apps/cli/dist/bin/nexus.js (${files} files, ${(bytes / 1024).toFixed(0)} kB) in ${Math.round(performance.now() - started)} ms`,
      );
    }
  } catch (error) {
    console.error(`build-cli: ${error.message}`);
    process.exit(1);
  }
}
