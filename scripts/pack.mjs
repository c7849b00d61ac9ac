#!/usr/bin/env node
// `npm run pack`: every publishable package as an npm tarball in packs/ (git-ignored). The library
// packages are built with tsc (JavaScript and declarations), the CLI is bundled (scripts/build-cli.mjs),
// and each is packed with `pnpm pack`, which applies publishConfig (exports pointing at dist) and
// turns `workspace:` ranges into the versions packed beside them, so every dependency between the
// tarballs resolves inside packs/. The CLI's tarball installs on its own:
//   npm install -g ./packs/agent-ledger-<version>.tgz
// Usage: node scripts/pack.mjs [--skip-cli-build]   (skip: the CLI in apps/cli/dist is already built)

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from './build-cli.mjs';
import { BUILD_ORDER, buildPackages } from './build-packages.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PACKS = path.join(root, 'packs');
const PNPM_VERSION = '10.34.9';

/** The folders of every publishable package: the libraries in dependency order, then the CLI. */
export const PUBLISHABLE = [...BUILD_ORDER.map((name) => path.join('packages', name)), path.join('apps', 'cli')];

function pnpm(args, cwd) {
  const direct = spawnSync('pnpm', args, { cwd, encoding: 'utf8' });
  if (direct.status === 0) return direct.stdout;
  if (direct.error?.code !== 'ENOENT') throw new Error(`pnpm ${args.join(' ')} failed:\n${direct.stdout}${direct.stderr}`);
  return execFileSync('npx', ['--yes', `pnpm@${PNPM_VERSION}`, ...args], { cwd, encoding: 'utf8' });
}

/**
 * Packs every publishable package into `destination` (packs/ by default, emptied first); returns
 * { name, version, file } for each.
 */
export async function packAll({ skipCliBuild = false, destination = PACKS } = {}) {
  buildPackages();
  if (!skipCliBuild) await buildCli();
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  const packed = [];
  for (const folder of PUBLISHABLE) {
    const before = new Set(readdirSync(destination));
    pnpm(['pack', '--pack-destination', destination], path.join(root, folder));
    const file = readdirSync(destination).find((entry) => !before.has(entry));
    if (!file) throw new Error(`pnpm pack wrote no tarball for ${folder}`);
    const { name, version } = JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8'));
    packed.push({ name, version, file: path.join(destination, file) });
  }
  return packed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  try {
    const packed = await packAll({ skipCliBuild: process.argv.includes('--skip-cli-build') });
    for (const { name, version, file } of packed) console.log(`${`${name}@${version}`.padEnd(40)} packs/${path.basename(file)}`);
  } catch (error) {
    console.error(`pack: ${error.message}`);
    process.exit(1);
  }
}
