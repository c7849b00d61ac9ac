// The packages work outside this repository: build them to JavaScript with declarations, `pnpm pack`
// each one the README's library snippet needs, install the tarballs into a fresh temporary project
// with npm, and run the snippet there with plain `node` (and type-check it with tsc). Third-party
// dependencies come from the npm registry; better-sqlite3's native module is the one the workspace
// already built when it is the same version (else `npm rebuild` compiles it against this Node).

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGES = ['core', 'db', 'forest', 'summarizers', 'agents-ledger'];
const SNIPPET = `import { openAgentsLedger } from '@nexus/agents-ledger';

const ledger = openAgentsLedger('./nexus.db');
const session = await ledger.createSession({ settings: { contextWindow: 200_000, reserveTokens: 20_000 } });
const turn = await ledger.appendTurn(session.id, { role: 'user', content: 'We pinned MySQL 5.7.44 on db-3.' });
if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
const { system, messages } = await ledger.buildContext(turn.id, { budgetTokens: 8000 });
console.log(JSON.stringify({ system, messages }));
await ledger.close();
`;

const project = mkdtempSync(path.join(tmpdir(), 'nexus-pack-'));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  // dist/ is build output (git-ignored); leave the workspace as the sources describe it.
  for (const name of PACKAGES) rmSync(path.join(root, 'packages', name, 'dist'), { recursive: true, force: true });
});

/** pnpm as installed, or the pinned one through npx (as scripts/setup.mjs finds it). */
function pnpm(args: string[], cwd: string): string {
  const direct = spawnSync('pnpm', args, { cwd, encoding: 'utf8' });
  if (direct.status === 0) return direct.stdout;
  const viaNpx = spawnSync('npx', ['--yes', 'pnpm@10.34.9', ...args], { cwd, encoding: 'utf8' });
  if (viaNpx.status !== 0) throw new Error(`pnpm ${args.join(' ')} failed:\n${direct.stderr}\n${viaNpx.stderr}`);
  return viaNpx.stdout;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe('packed packages in a fresh project', () => {
  it('install from their tarballs and run the README library snippet with node', { timeout: 300_000 }, () => {
    run(process.execPath, [path.join(root, 'scripts/build-packages.mjs'), ...PACKAGES], root);
    const tarballs = path.join(project, 'tarballs');
    mkdirSync(tarballs);
    const dependencies: Record<string, string> = {};
    for (const name of PACKAGES) {
      pnpm(['pack', '--pack-destination', tarballs], path.join(root, 'packages', name));
      const tarball = readdirSync(tarballs).find((file) => file.startsWith(`nexus-${name}-`)) as string;
      expect(tarball, `pnpm pack of @nexus/${name}`).toBeDefined();
      // The packed manifest points at built files, with workspace:* replaced by versions.
      const manifest = JSON.parse(
        execFileSync('tar', ['-xzOf', path.join(tarballs, tarball), 'package/package.json'], { encoding: 'utf8' }),
      );
      expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
      expect(JSON.stringify(manifest.dependencies ?? {})).not.toContain('workspace:');
      dependencies[`@nexus/${name}`] = `file:./tarballs/${tarball}`;
    }
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'outside', private: true, type: 'module', dependencies }, null, 2),
    );
    // node-gyp finds this Node's headers beside the binary (scripts/setup.mjs does the same).
    const nodeDir = path.resolve(path.dirname(process.execPath), '..');
    const env = { ...process.env, npm_config_nodedir: nodeDir, npm_config_audit: 'false', npm_config_fund: 'false' };
    run('npm', ['install', '--ignore-scripts', '--no-package-lock', '--loglevel=error'], project, env);

    const installed = path.join(project, 'node_modules', 'better-sqlite3');
    const workspaceSqlite = path.dirname(
      createRequire(path.join(root, 'packages/db/package.json')).resolve('better-sqlite3/package.json'),
    );
    const version = (folder: string) => JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).version;
    const built = path.join(workspaceSqlite, 'build', 'Release', 'better_sqlite3.node');
    if (version(installed) === version(workspaceSqlite) && existsSync(built)) {
      mkdirSync(path.join(installed, 'build', 'Release'), { recursive: true });
      copyFileSync(built, path.join(installed, 'build', 'Release', 'better_sqlite3.node'));
    } else {
      run('npm', ['rebuild', 'better-sqlite3', '--loglevel=error'], project, env);
    }

    writeFileSync(path.join(project, 'snippet.mjs'), SNIPPET);
    const output = JSON.parse(run(process.execPath, ['snippet.mjs'], project));
    expect(output.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'We pinned MySQL 5.7.44 on db-3.' }] }]);
    expect(existsSync(path.join(project, 'nexus.db'))).toBe(true);

    // The declarations resolve too: the same snippet type-checks as TypeScript against the tarballs.
    writeFileSync(path.join(project, 'snippet.ts'), SNIPPET);
    const tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
    const typeTypes = path.join(
      path.dirname(createRequire(path.join(root, 'package.json')).resolve('@types/node/package.json')),
      '..',
    );
    run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--skipLibCheck',
        '--typeRoots',
        typeTypes,
        '--types',
        'node',
        'snippet.ts',
      ],
      project,
    );
  });

  it('npm install -g from apps/cli puts a nexus on PATH that works from any directory', { timeout: 120_000 }, () => {
    const prefix = path.join(project, 'global');
    run('npm', ['install', '-g', '.', '--prefix', prefix, '--loglevel=error'], path.join(root, 'apps/cli'));
    const nexus = path.join(prefix, 'bin', 'nexus');
    const elsewhere = path.join(project, 'elsewhere');
    mkdirSync(path.join(elsewhere, 'chats'), { recursive: true });
    writeFileSync(
      path.join(elsewhere, 'chats', 'one.json'),
      JSON.stringify([
        { role: 'user', content: 'Where is the release checklist?' },
        { role: 'assistant', content: 'In docs/release.md.' },
      ]),
    );
    const { NEXUS_DB: _ignored, ...env } = process.env;
    const imported = run(nexus, ['import', 'chats'], elsewhere, env);
    expect(imported).toMatch(/^imported 1 file, 2 lines: 2 new turns/);
    expect(existsSync(path.join(elsewhere, 'nexus.db'))).toBe(true);
    expect(run(nexus, ['search', 'checklist'], elsewhere, env)).toMatch(/t_\S+ .*Where is the/);
  });
});
