#!/usr/bin/env node
// Builds the library packages to JavaScript with type declarations (packages/<name>/dist), in
// dependency order: each package compiles against the declarations of the ones below it (the
// `paths` in its tsconfig.build.json). The workspace itself never needs this: it runs the sources
// with tsx and vitest. `pnpm pack` then ships dist through each package's publishConfig.exports.
// Usage: node scripts/build-packages.mjs [name…]   (default: every library package)

import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILD_ORDER = [
  'core',
  'store',
  'store-sqlite',
  'store-postgres',
  'forest',
  'summarizers',
  'embeddings',
  'events-ledger',
  'agents-ledger',
  'runtime-kit',
  'ai-sdk',
  'openai-agents',
  'runtime',
  'transcripts',
  'server',
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');

export function buildPackages(names = BUILD_ORDER) {
  for (const name of BUILD_ORDER.filter((candidate) => names.includes(candidate))) {
    const folder = path.join(root, 'packages', name);
    rmSync(path.join(folder, 'dist'), { recursive: true, force: true });
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(folder, 'tsconfig.build.json')], {
      cwd: root,
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`build of @agent-ledger/${name} failed:\n${result.stdout}${result.stderr}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const requested = process.argv.slice(2);
  try {
    buildPackages(requested.length > 0 ? requested : BUILD_ORDER);
    console.error(`built ${requested.length > 0 ? requested.join(', ') : BUILD_ORDER.join(', ')} into packages/*/dist`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
