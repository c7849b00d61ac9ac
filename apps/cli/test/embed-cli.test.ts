// `nexus embed` as a user runs it: the built CLI as a process, a real ledger file, and a real HTTP
// server on loopback speaking the OpenAI embeddings API. It stores one vector per turn under the
// model's name, is resumable (a run that fails keeps its batches and the next one embeds only the
// rest), takes its settings from flags or NEXUS_EMBEDDINGS_*, and never prints the key.

import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { type AgentsLedger, openAgentsLedger } from '@agent-ledger/agents-ledger';
import {
  embeddingsAnswer,
  type LoopbackEmbeddingsServer,
  type RecordedEmbeddingsRequest,
  startLoopbackEmbeddings,
} from '@agent-ledger/embeddings/testing';
import { freshPostgresDatabase } from '@agent-ledger/store-postgres/testing';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { main } from '../src/main.ts';
import { BUILT_CLI } from './built-cli.ts';
import { runCli, runCliWith, tempFolder } from './run-cli.ts';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The built CLI as a child process. Asynchronous on purpose: the loopback server answers from this
 * process's event loop, which a spawnSync would block. The environment is the test's alone.
 */
function nexus(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NEXUS_|OPENAI_)/.test(name))) as Record<
    string,
    string
  >;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { env: { ...inherited, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A vector of four numbers per text: its length, its word count and two constants. */
const lengthVectors = (request: RecordedEmbeddingsRequest) =>
  embeddingsAnswer((request.body.input ?? []).map((text) => [text.length, text.split(' ').length, 1, 0.5]));

/** "dog", "beagle" and "puppy" on one axis, as an embedding model would place them. */
function conceptVector(text: string): number[] {
  const dog = (text.toLowerCase().match(/\b(dog|beagle|puppy)\b/g) ?? []).length;
  return [dog, 0.001, 0.001, 0.001];
}

let server: LoopbackEmbeddingsServer;
const postgresServer = inject('postgresUrl');
let temp: ReturnType<typeof tempFolder>;
let sessions: string[];

/** Two sessions (12 and 5 turns) and a fork with 1 turn of its own: 18 turns to embed. */
async function buildLedger(file: string): Promise<string[]> {
  const ledger: AgentsLedger = openAgentsLedger(file);
  try {
    const first = await ledger.createSession({ label: 'first' });
    const firstTurns = await ledger.appendTurns(
      first.id,
      Array.from({ length: 12 }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `first turn ${index}`,
      })),
    );
    const second = await ledger.createSession({ label: 'second' });
    await ledger.appendTurns(
      second.id,
      Array.from({ length: 5 }, (_, index) => ({ role: 'user', content: `second session turn ${index}` })),
    );
    const fork = await ledger.forkFrom(firstTurns[3]?.id as string);
    await ledger.appendTurn(fork.session.id, { role: 'user', content: 'a turn of the fork' });
    return [first.id, second.id, fork.session.id];
  } finally {
    await ledger.close();
  }
}

function stored(file: string): Array<{ model: string; dimensions: number; n: number }> {
  const raw = openRawSqlite(file, { readonly: true });
  try {
    return raw
      .prepare('SELECT model, dimensions, count(*) AS n FROM turn_embeddings GROUP BY model, dimensions ORDER BY model')
      .all() as Array<{ model: string; dimensions: number; n: number }>;
  } finally {
    raw.close();
  }
}

beforeEach(async () => {
  temp = tempFolder();
  sessions = await buildLedger(temp.dbPath);
  server = await startLoopbackEmbeddings(lengthVectors);
});

afterEach(async () => {
  await server.close();
  temp.cleanup();
});

describe('nexus embed', () => {
  it('embeds every turn once with settings from the environment, then finds nothing left', async () => {
    const env = {
      NEXUS_EMBEDDINGS_URL: server.baseURL,
      NEXUS_EMBEDDINGS_MODEL: 'lengths',
      NEXUS_EMBEDDINGS_KEY: 'sk-loopback-secret',
    };
    const run = await nexus(['embed', '--db', temp.dbPath], env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^embedded 18 turns of 3 sessions with openai-compatible:lengths \(4 dimensions\) in \d+(\.\d)? s\n$/,
    );
    expect(run.stderr).toBe(''); // not a terminal: no progress drawn
    expect(stored(temp.dbPath)).toEqual([{ model: 'openai-compatible:lengths', dimensions: 4, n: 18 }]);
    // Batches of 32 per session: one request for each session with turns of its own.
    expect(server.requests.map((request) => request.body.input?.length).sort()).toEqual([1, 12, 5].sort());
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer sk-loopback-secret')).toBe(true);
    expect(server.requests[0]?.body).toMatchObject({ model: 'lengths', encoding_format: 'float' });

    const again = await nexus(['embed', '--db', temp.dbPath], env);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('nothing to embed: every turn of 3 sessions has a vector of openai-compatible:lengths\n');
    expect(server.requests).toHaveLength(3);
  });

  it('flags win over the environment: --session, --dimensions and --batch, with --json', async () => {
    const [first] = sessions as [string];
    const run = await nexus(
      [
        'embed',
        '--db',
        temp.dbPath,
        '--url',
        server.baseURL,
        '--model',
        'lengths',
        '--dimensions',
        '4',
        '--batch',
        '5',
        '--session',
        first,
        '--json',
      ],
      { NEXUS_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1', NEXUS_EMBEDDINGS_MODEL: 'other' },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      model: 'openai-compatible:lengths@4',
      embedded: 12,
      sessions: 1,
      dimensions: 4,
      endpoint: `${server.baseURL}/embeddings`,
    });
    expect(typeof result.seconds).toBe('number');
    expect(server.requests.map((request) => request.body.input?.length)).toEqual([5, 5, 2]);
    expect(server.requests.every((request) => request.body.dimensions === 4)).toBe(true);
    expect(stored(temp.dbPath)).toEqual([{ model: 'openai-compatible:lengths@4', dimensions: 4, n: 12 }]);
  });

  it('keeps what it stored when the endpoint fails midway, says so, and the next run embeds only the rest', async () => {
    server.answerWith((request, index) =>
      index < 2
        ? lengthVectors(request)
        : { kind: 'json', status: 400, body: { error: { message: 'input is too long for the model' } } },
    );
    const args = ['embed', '--db', temp.dbPath, '--url', server.baseURL, '--model', 'lengths', '--batch', '4'];
    const failed = await nexus(args);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(
      `nexus: The embeddings endpoint ${server.baseURL}/embeddings answered HTTP 400: input is too long for the model.`,
    );
    expect(failed.stderr).toMatch(
      /5 of 18 turns were embedded and stored before it: `nexus embed --db .*` goes on from there\.\n$/,
    );
    // Newest session first: the fork's 1 turn, then the second session's first batch of 4.
    expect(stored(temp.dbPath)).toEqual([{ model: 'openai-compatible:lengths', dimensions: 4, n: 5 }]);
    const texts = new Set(server.requests.slice(0, 2).flatMap((request) => request.body.input ?? []));

    server.answerWith(lengthVectors);
    const resumed = await nexus([...args, '--json']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ embedded: 13 });
    const resent = server.requests.slice(3).flatMap((request) => request.body.input ?? []);
    expect(resent.filter((text) => texts.has(text))).toEqual([]);
    expect(stored(temp.dbPath)).toEqual([{ model: 'openai-compatible:lengths', dimensions: 4, n: 18 }]);
  });

  it('never prints the key, even when the server echoes it', async () => {
    server.answerWith(() => ({
      kind: 'json',
      status: 401,
      body: { error: { message: 'Incorrect API key provided: sk-loopback-secret' } },
    }));
    const run = await nexus(['embed', '--db', temp.dbPath, '--url', server.baseURL, '--model', 'lengths', '--json'], {
      NEXUS_EMBEDDINGS_KEY: 'sk-loopback-secret',
    });
    expect(run.status).toBe(1);
    expect(`${run.stdout}${run.stderr}`).not.toContain('sk-loopback-secret');
    expect(run.stderr).toContain(
      'answered HTTP 401: Incorrect API key provided: [API key]. Check the API key. Nothing was stored.',
    );
    expect(JSON.parse(run.stdout).error.code).toBe('EMBEDDER_FAILED');
  });

  it('draws progress on stderr when it is a terminal', async () => {
    let stdout = '';
    let stderr = '';
    const code = await main(['embed', '--db', temp.dbPath, '--url', server.baseURL, '--model', 'lengths', '--batch', '4'], {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdin: Readable.from(['']),
      stderrIsTerminal: true,
      env: {},
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^embedded 18 turns/);
    expect(stderr).toContain('embedding');
    expect(stderr).toContain('18/18 turns');
  });

  it('refuses, as usage mistakes, a missing endpoint or model and settings that cannot work', async () => {
    const missing = await runCli(['embed', '--db', temp.dbPath]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nexus embed needs an embeddings endpoint and a model: --url http://localhost:11434/v1');
    const badUrl = await runCli(['embed', '--db', temp.dbPath, '--url', 'localhost:11434', '--model', 'm']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toBe(
      'nexus: --url must start with http:// or https:// (like http://localhost:11434/v1), got "localhost:11434".\n',
    );
    const badBatch = await runCli(['embed', '--db', temp.dbPath, '--url', server.baseURL, '--model', 'm', '--batch', '0']);
    expect(badBatch.code).toBe(2);
    expect(badBatch.stderr).toContain("The embedder's --batch must be a whole number from 1 to 2048.");
    expect(server.requests).toEqual([]);
    expect(stored(temp.dbPath)).toEqual([]);
  });

  it('search --semantic ranks the stored vectors by meaning, says what is not embedded yet, and reads only', async () => {
    const ledger = openAgentsLedger(temp.dbPath);
    const pets = await ledger.createSession({ label: 'pets' });
    const [beagle] = await ledger.appendTurns(pets.id, [
      { role: 'user', content: 'I adopted a beagle from the shelter.' },
      { role: 'assistant', content: 'What is the name of the new puppy?' },
    ]);
    await ledger.close();
    server.answerWith((request) => embeddingsAnswer((request.body.input ?? []).map(conceptVector)));
    const env = { NEXUS_EMBEDDINGS_URL: server.baseURL, NEXUS_EMBEDDINGS_MODEL: 'concepts' };

    const before = await nexus(['search', 'my dog', '--semantic', '--db', temp.dbPath], env);
    expect(before.status, before.stderr).toBe(0);
    expect(before.stdout).toMatch(
      /^no stored vector of openai-compatible:concepts to compare with\n20 turns have no vector of openai-compatible:concepts yet: `nexus embed --db .*` \(with the same settings\) stores them\.\n$/,
    );
    expect(stored(temp.dbPath)).toEqual([]); // searching embedded nothing
    expect((await nexus(['embed', '--db', temp.dbPath], env)).status).toBe(0);
    const after = await nexus(['search', 'my dog', '--semantic', '--limit', '2', '--db', temp.dbPath, '--json'], env);
    expect(after.status, after.stderr).toBe(0);
    const result = JSON.parse(after.stdout);
    expect(result).toMatchObject({ model: 'openai-compatible:concepts', unembedded: 0 });
    expect(result.hits.map((hit: { snippet: string }) => hit.snippet)).toEqual([
      'What is the name of the new puppy?',
      'I adopted a beagle from the shelter.',
    ]);
    expect(result.hits[1]).toMatchObject({ turnId: beagle?.id, sessionId: pets.id, role: 'user', similarity: 1 });
    const text = await nexus(['search', 'my dog', '--semantic', '--limit', '1', '--db', temp.dbPath, '--session', pets.id], env);
    expect(text.stdout).toMatch(
      /^t_\w+ {2}s_\w+ {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}1\.000 {2}What is the name of the new puppy\?\n$/,
    );

    const mixed = await runCliWith(['search', 'dog', '--semantic', '--role', 'user', '--db', temp.dbPath], { env });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--semantic ranks stored vectors and takes --session and --limit only, not --role.');
    const unset = await runCli(['search', 'dog', '--semantic', '--db', temp.dbPath]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(
      '--semantic needs the embedding model the vectors were stored with: set $NEXUS_EMBEDDINGS_URL',
    );
  });

  it('--help names the endpoint, the environment, the key and that it resumes', async () => {
    const run = await runCli(['embed', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: nexus embed \[options\]/);
    for (const text of [
      '--url URL',
      '--model NAME',
      '--dimensions N',
      '--batch N',
      '--session ID',
      'NEXUS_EMBEDDINGS_KEY',
      'running',
    ])
      expect(run.stdout).toContain(text);
  });
});

describe.skipIf(postgresServer === null)(
  `nexus embed on PostgreSQL${postgresServer === null ? ' (skipped: no PostgreSQL server here, apt-get install postgresql)' : ''}`,
  () => {
    it('stores the vectors in the database and finds them by meaning there', async () => {
      const url = await freshPostgresDatabase(postgresServer as string, 'cli_embed');
      await buildLedger(url);
      const env = { NEXUS_EMBEDDINGS_URL: server.baseURL, NEXUS_EMBEDDINGS_MODEL: 'lengths' };
      const run = await nexus(['embed', '--db', url, '--batch', '7'], env);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^embedded 18 turns of 3 sessions with openai-compatible:lengths \(4 dimensions\)/);
      const again = await nexus(['embed', '--db', url], env);
      expect(again.stdout).toBe('nothing to embed: every turn of 3 sessions has a vector of openai-compatible:lengths\n');
      const found = await nexus(['search', 'a turn of the fork', '--semantic', '--limit', '1', '--db', url, '--json'], env);
      expect(found.status, found.stderr).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({ hits: [{ snippet: 'a turn of the fork', similarity: 1 }], unembedded: 0 });
    });
  },
);
