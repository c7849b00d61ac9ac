// The packages work outside this repository, installed the way users install them: every
// publishable package is packed (scripts/pack.mjs) into a temporary folder; library users install
// the tarballs they need into fresh projects with npm and run the README's snippet with plain
// `node` and type-check it with strict TypeScript (no skipLibCheck); the CLI's tarball is installed
// with `npm install -g` into an empty prefix and run from a folder that is not the repository.
// Third-party dependencies come from the npm registry. better-sqlite3's native module is the one
// the workspace already built when the version matches (its install script would compile the same
// source again; the script is better-sqlite3's, not ours), else `npm rebuild` compiles it.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUILD_ORDER } from './build-packages.mjs';
import { packAll } from './pack.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(path.join(tmpdir(), 'nexus-pack-'));
const tarballs = path.join(work, 'packs');
const postgresServer = inject('postgresUrl');

const SNIPPET = `import { openAgentsLedger } from '@agent-ledger/agents-ledger';

const ledger = openAgentsLedger(process.argv[2] ?? './nexus.db');
const session = await ledger.createSession({ settings: { contextWindow: 200_000, reserveTokens: 20_000 } });
const turn = await ledger.appendTurn(session.id, { role: 'user', content: 'We pinned MySQL 5.7.44 on db-3.' });
if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
const { system, messages } = await ledger.buildContext(turn.id, { budgetTokens: 8000 });
console.log(JSON.stringify({ system, messages }));
await ledger.close();
`;

// An outside engine proves itself with the exported contract suite; here it only has to type-check.
const CONTRACT_SNIPPET = `import type { LedgerStore } from '@agent-ledger/store';
import type { StoreUnderTest } from '@agent-ledger/store/contract';

export function subject(open: () => Promise<LedgerStore>): StoreUnderTest {
  return { open };
}
`;

const AI_SDK_APP = `import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { ledgerMiddleware } from '@agent-ledger/ai-sdk';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

const ledger = openAgentsLedger('./ai-app.db');
const { id: sessionId } = await ledger.createSession();
const inner = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => ({
    content: [{ type: 'text', text: 'Noted: ' + prompt.at(-1).content[0].text }],
    finishReason: { unified: 'stop', raw: undefined },
    usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
    warnings: [],
  }),
});
const model = wrapLanguageModel({ model: inner, middleware: ledgerMiddleware({ ledger, sessionId }) });
const { text } = await generateText({ model, messages: [{ role: 'user', content: 'hello from npm' }] });
let turns = 0;
for await (const _ of ledger.getFullHistory((await ledger.getSession(sessionId)).headTurnId)) turns += 1;
console.log(text + ' | ' + turns + ' turns');
await ledger.close();
`;

const AGENTS_APP = `import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { LedgerSession } from '@agent-ledger/openai-agents';
import { Agent, run, setTracingDisabled, Usage } from '@openai/agents-core';

setTracingDisabled(true);
const model = {
  getResponse: async () => ({
    output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Noted.' }] }],
    usage: new Usage(),
  }),
  getStreamedResponse() { throw new Error('not here'); },
};
const ledger = openAgentsLedger('./agents-app.db');
const session = await LedgerSession.create({ ledger });
const result = await run(new Agent({ name: 'npm', model }), 'hello from npm', { session });
let turns = 0;
for await (const _ of ledger.getFullHistory((await ledger.getSession(await session.getSessionId())).headTurnId)) turns += 1;
console.log(result.finalOutput + ' | ' + turns + ' turns');
await ledger.close();
`;

const packed = new Map<string, string>();
beforeAll(async () => {
  // The CLI bundle was built for this run (scripts/build-cli-setup.ts); rebuilding it here
  // would pull it from under the tests that run it.
  for (const { name, file } of await packAll({ skipCliBuild: true, destination: tarballs })) packed.set(name, file);
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  // dist/ is build output (git-ignored); leave the workspace as the sources describe it.
  for (const name of BUILD_ORDER) rmSync(path.join(root, 'packages', name, 'dist'), { recursive: true, force: true });
});

// node-gyp finds this Node's headers beside the binary (scripts/setup.mjs does the same).
const nodeDir = path.resolve(path.dirname(process.execPath), '..');
const npmEnv = {
  ...process.env,
  npm_config_nodedir: nodeDir,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function tarballOf(name: string): string {
  const file = packed.get(name);
  if (!file) throw new Error(`no tarball for ${name}`);
  return file;
}

/** A fresh project with these tarballs as its dependencies, installed by npm (scripts skipped). */
function project(label: string, names: string[]): string {
  const folder = path.join(work, label);
  mkdirSync(folder);
  const dependencies = Object.fromEntries(names.map((name) => [name, `file:${tarballOf(name)}`]));
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: label, private: true, type: 'module', dependencies }));
  run('npm', ['install', '--ignore-scripts', '--no-package-lock', '--loglevel=error'], folder, npmEnv);
  return folder;
}

/** better-sqlite3's native module in `modules` (a node_modules folder), as its install script would leave it. */
function provideSqliteBinding(modules: string): void {
  const installed = path.join(modules, 'better-sqlite3');
  const workspaceSqlite = path.dirname(
    createRequire(path.join(root, 'packages/store-sqlite/package.json')).resolve('better-sqlite3/package.json'),
  );
  const version = (folder: string) => JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).version;
  const built = path.join(workspaceSqlite, 'build', 'Release', 'better_sqlite3.node');
  if (version(installed) === version(workspaceSqlite) && existsSync(built)) {
    mkdirSync(path.join(installed, 'build', 'Release'), { recursive: true });
    copyFileSync(built, path.join(installed, 'build', 'Release', 'better_sqlite3.node'));
  } else {
    run('npm', ['rebuild', 'better-sqlite3', '--loglevel=error'], path.dirname(modules), npmEnv);
  }
}

/** Strict TypeScript, with the compiler's default skipLibCheck (false): every declaration is checked. */
function typeCheckStrictly(folder: string, files: string[]): void {
  const resolveFromRoot = createRequire(path.join(root, 'package.json'));
  const tsc = resolveFromRoot.resolve('typescript/bin/tsc');
  const typeRoots = path.join(path.dirname(resolveFromRoot.resolve('@types/node/package.json')), '..');
  const options = ['--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext'];
  run(process.execPath, [tsc, ...options, '--typeRoots', typeRoots, '--types', 'node', ...files], folder);
}

const LIBRARY = [
  '@agent-ledger/core',
  '@agent-ledger/store',
  '@agent-ledger/forest',
  '@agent-ledger/summarizers',
  '@agent-ledger/embeddings',
];
const ABOVE_THE_STORE = [
  '@agent-ledger/events-ledger',
  '@agent-ledger/runtime-kit',
  '@agent-ledger/ai-sdk',
  '@agent-ledger/openai-agents',
  '@agent-ledger/runtime',
  '@agent-ledger/transcripts',
  '@agent-ledger/server',
];

/** A module importing every entry of these installed packages, so the compiler reads every public declaration. */
function everyEntry(folder: string, names: string[]): string {
  const entries = names.flatMap((name) => {
    const manifest = JSON.parse(readFileSync(path.join(folder, 'node_modules', name, 'package.json'), 'utf8'));
    return Object.keys(manifest.exports).map((entry) => (entry === '.' ? name : `${name}/${entry.slice(2)}`));
  });
  const imports = entries.map((entry, index) => `import * as entry${index} from '${entry}';`);
  return `${imports.join('\n')}\nexport const entries = [${entries.map((_, index) => `entry${index}`).join(', ')}];\n`;
}

describe('packed library packages in fresh projects', () => {
  it('every dependency between the tarballs resolves inside the packed set', () => {
    for (const [name, file] of packed) {
      const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
      expect(manifest.name).toBe(name);
      for (const [dependency, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        expect(String(range), `${name} → ${dependency}`).not.toContain('workspace:');
        if (dependency.startsWith('@agent-ledger/')) expect(packed.has(dependency), `${name} → ${dependency}`).toBe(true);
      }
      if (name !== 'agent-ledger')
        expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    }
    expect([...packed.keys()]).toContain('agent-ledger');
  });

  it('a SQLite user installs no pg, runs the README snippet, and every public type checks without skipLibCheck', () => {
    const names = [...LIBRARY, '@agent-ledger/store-sqlite', '@agent-ledger/agents-ledger', ...ABOVE_THE_STORE];
    const folder = project('sqlite-user', names);
    expect(existsSync(path.join(folder, 'node_modules', 'pg'))).toBe(false);
    provideSqliteBinding(path.join(folder, 'node_modules'));
    writeFileSync(path.join(folder, 'snippet.mjs'), SNIPPET);
    const output = JSON.parse(run(process.execPath, ['snippet.mjs'], folder));
    expect(output.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'We pinned MySQL 5.7.44 on db-3.' }] }]);
    expect(existsSync(path.join(folder, 'nexus.db'))).toBe(true);

    // A location naming the engine that is not installed says which package to install.
    const refused = spawnSync(process.execPath, ['snippet.mjs', 'postgres://ledger:s3cret@127.0.0.1:1/none'], {
      cwd: folder,
      encoding: 'utf8',
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('npm install @agent-ledger/store-postgres');
    expect(refused.stderr).not.toContain('s3cret');

    // An AI SDK app and an Agents SDK app add the ledger with the installed adapters (their SDKs came as peers).
    writeFileSync(path.join(folder, 'ai-app.mjs'), AI_SDK_APP);
    expect(run(process.execPath, ['ai-app.mjs'], folder).trim()).toBe('Noted: hello from npm | 2 turns');
    writeFileSync(path.join(folder, 'agents-app.mjs'), AGENTS_APP);
    expect(run(process.execPath, ['agents-app.mjs'], folder).trim()).toBe('Noted. | 2 turns');

    writeFileSync(path.join(folder, 'snippet.ts'), SNIPPET);
    writeFileSync(path.join(folder, 'engine.ts'), CONTRACT_SNIPPET);
    writeFileSync(path.join(folder, 'entries.ts'), everyEntry(folder, names));
    typeCheckStrictly(folder, ['snippet.ts', 'engine.ts', 'entries.ts']);
    // The check is real: a wrong type in the snippet fails it.
    writeFileSync(
      path.join(folder, 'wrong.ts'),
      "import { openAgentsLedger } from '@agent-ledger/agents-ledger';\nopenAgentsLedger(42);\n",
    );
    expect(() => typeCheckStrictly(folder, ['wrong.ts'])).toThrow(/TS2345/);
    // Installs, three apps and four strict type checks, all synchronous: a minute on a quiet machine.
  }, 180_000);

  it('a PostgreSQL user compiles no better-sqlite3 and runs the same snippet on a server', async () => {
    const names = [...LIBRARY, '@agent-ledger/store-postgres', '@agent-ledger/agents-ledger'];
    const folder = project('postgres-user', names);
    expect(existsSync(path.join(folder, 'node_modules', 'better-sqlite3'))).toBe(false);
    writeFileSync(path.join(folder, 'snippet.mjs'), SNIPPET);
    const refused = spawnSync(process.execPath, ['snippet.mjs', './ledger.db'], { cwd: folder, encoding: 'utf8' });
    expect(refused.stderr).toContain('npm install @agent-ledger/store-sqlite');
    writeFileSync(path.join(folder, 'snippet.ts'), SNIPPET);
    writeFileSync(path.join(folder, 'entries.ts'), everyEntry(folder, names));
    typeCheckStrictly(folder, ['snippet.ts', 'entries.ts']);
    if (!postgresServer) return; // no server on this machine (CI always has one: the global setup says so)
    const { freshPostgresDatabase } = await import('../packages/store-postgres/src/testing.ts');
    const url = await freshPostgresDatabase(postgresServer, 'pack');
    const output = JSON.parse(run(process.execPath, ['snippet.mjs', url], folder));
    expect(output.messages[0].content[0].text).toBe('We pinned MySQL 5.7.44 on db-3.');
  });
});

describe('the CLI tarball, installed with npm install -g', () => {
  let nexus = '';
  let elsewhere = '';
  let withoutBinding: { status: number | null; stderr: string } | null = null;
  const env = (() => {
    const { NEXUS_DB: _ignored, ...rest } = process.env;
    return rest;
  })();

  beforeAll(() => {
    const prefix = path.join(work, 'global');
    run(
      'npm',
      ['install', '-g', tarballOf('agent-ledger'), '--prefix', prefix, '--ignore-scripts', '--loglevel=error'],
      work,
      npmEnv,
    );
    nexus = path.join(prefix, 'bin', 'nexus');
    elsewhere = path.join(work, 'elsewhere');
    mkdirSync(path.join(elsewhere, 'chats'), { recursive: true });
    // As npm 12 installs it by default (no dependency install scripts): no native module yet.
    withoutBinding = spawnSync(nexus, ['session', 'create', '--db', 'first.db'], { cwd: elsewhere, env, encoding: 'utf8' });
    provideSqliteBinding(path.join(prefix, 'lib', 'node_modules', 'agent-ledger', 'node_modules'));
  }, 300_000);

  it("without better-sqlite3's native module (npm 12 skips install scripts), says how to install it", () => {
    expect(withoutBinding?.status).toBe(1);
    expect(withoutBinding?.stderr).toContain('--allow-scripts=better-sqlite3');
    expect(withoutBinding?.stderr).not.toMatch(/\n\s+at /);
  });

  it('installs one bundled file set and two runtime dependencies, and knows its version', () => {
    const installed = path.join(work, 'global', 'lib', 'node_modules', 'agent-ledger');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['better-sqlite3', 'pg']);
    expect(existsSync(path.join(installed, 'node_modules', 'tsx'))).toBe(false);
    expect(run(nexus, ['--version'], elsewhere, env).trim()).toBe(manifest.version);
  });

  it('runs the demo, imports and searches from a folder that is not the repository', () => {
    const demo = run(nexus, ['demo'], elsewhere, env);
    for (const heading of ['== 1.', '== 4.', '== 6.']) expect(demo).toContain(heading);
    expect(existsSync(path.join(elsewhere, 'nexus-demo.db'))).toBe(true);

    writeFileSync(
      path.join(elsewhere, 'chats', 'one.json'),
      JSON.stringify([
        { role: 'user', content: 'Where is the release checklist?' },
        { role: 'assistant', content: 'In docs/release.md.' },
      ]),
    );
    expect(run(nexus, ['import', 'chats'], elsewhere, env)).toMatch(/^imported 1 file, 2 lines: 2 new turns/);
    expect(run(nexus, ['search', 'checklist'], elsewhere, env)).toMatch(/t_\S+ .*Where is the/);
  });

  it('serves the API and the viewer', async () => {
    const server = spawn(nexus, ['serve', '--port', '0', '--db', 'nexus-demo.db'], { cwd: elsewhere, env });
    try {
      const [firstLine] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];
      const url = /listening on (\S+)/.exec(firstLine)?.[1] as string;
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const sessions = (await (await fetch(`${url}/v1/sessions`)).json()) as { sessions: unknown[] };
      expect(sessions.sessions.length).toBeGreaterThan(0);
    } finally {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
  });

  it('answers MCP on stdio', async () => {
    const mcp = spawn(nexus, ['mcp', '--db', 'nexus-demo.db'], { cwd: elsewhere, env });
    try {
      const lines = createInterface({ input: mcp.stdout });
      const replies = lines[Symbol.asyncIterator]();
      const send = (message: object) => mcp.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-test', version: '1' } },
      });
      const initialized = JSON.parse((await replies.next()).value as string);
      expect(initialized.result.serverInfo.name).toBeTruthy();
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const tools = JSON.parse((await replies.next()).value as string);
      expect(tools.result.tools.map((tool: { name: string }) => tool.name)).toContain('search_history');
    } finally {
      mcp.stdin.end();
      mcp.kill('SIGTERM');
      await once(mcp, 'exit');
    }
  });
});
