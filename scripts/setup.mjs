#!/usr/bin/env node
// One-step setup for a fresh machine with only Node and npm: finds or fetches pnpm (pinned), points
// node-gyp at this Node's own headers (so better-sqlite3 builds without downloading anything),
// installs the workspace and builds the CLI (apps/cli/dist, what `npm run demo` and `npm run nexus`
// run). Quiet unless something fails; fast when nothing changed. Used by `npm run demo` and `npm test`.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PNPM_VERSION = '10.34.9';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 10)) {
  console.error(`setup: Node ${process.versions.node} is too old; this project needs Node 20.10 or newer.`);
  process.exit(1);
}

function upToDate() {
  const marker = path.join(root, 'node_modules', '.modules.yaml');
  const lock = path.join(root, 'pnpm-lock.yaml');
  if (!existsSync(marker) || !existsSync(path.join(root, 'node_modules', '.pnpm', 'lock.yaml'))) return false;
  const installed = readFileSync(path.join(root, 'node_modules', '.pnpm', 'lock.yaml'), 'utf8');
  return installed === readFileSync(lock, 'utf8') && statSync(marker).mtimeMs > 0 && nativeModuleLoads();
}

function nativeModuleLoads() {
  const probe = spawnSync(process.execPath, ['-e', "require('better-sqlite3')(':memory:').close()"], {
    cwd: path.join(root, 'packages', 'store-sqlite'),
    stdio: 'ignore',
  });
  return probe.status === 0;
}

function pnpmCommand() {
  try {
    const version = execFileSync('pnpm', ['--version'], { encoding: 'utf8' }).trim();
    if (version === PNPM_VERSION) return ['pnpm', []];
  } catch {
    // not installed: fall through to npx
  }
  return ['npx', ['--yes', `pnpm@${PNPM_VERSION}`]];
}

/** Bundles `nexus` (half a second); says nothing unless the build fails. */
async function buildCli() {
  const { buildCli: build } = await import('./build-cli.mjs');
  try {
    await build();
  } catch (error) {
    console.error(`setup: building the CLI failed: ${error.message}`);
    process.exit(1);
  }
}

if (upToDate()) {
  await buildCli();
  process.exit(0);
}

// node-gyp downloads headers unless told where they are; Node installs ship them beside the binary.
const nodeDir = path.resolve(path.dirname(process.execPath), '..');
const env = { ...process.env };
if (existsSync(path.join(nodeDir, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodeDir;

const [command, prefix] = pnpmCommand();
const started = Date.now();
console.error(
  `setup: installing dependencies with pnpm ${PNPM_VERSION} (the first run compiles better-sqlite3: a minute or two)…`,
);
// Its output (hundreds of lines of native build logs) is shown only when the install fails.
const result = spawnSync(command, [...prefix, 'install', '--frozen-lockfile', '--reporter=append-only'], {
  cwd: root,
  env,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
  stdio: ['ignore', 'pipe', 'pipe'],
});
if (result.status !== 0) {
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  console.error('setup: dependency install failed (its output is above).');
  process.exit(result.status ?? 1);
}
if (!nativeModuleLoads()) {
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  console.error('setup: better-sqlite3 did not build. Install a C++ toolchain (python3, make, g++) and run again.');
  process.exit(1);
}
await buildCli();
console.error(`setup: done in ${Math.round((Date.now() - started) / 1000)} s`);
