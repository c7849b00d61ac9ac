// `nexus context --retrieve` and `nexus mcp`'s get_context on a line only partly embedded, as a user
// runs them: the built binary as a process (both open the ledger read-only), a real ledger file, and
// a real OpenAI-compatible /v1/embeddings server on loopback that records every text it is sent.
// Both rank by the vectors `nexus embed` stored, send the endpoint the query alone, and leave the
// turns without a vector to bm25; `nexus context` says how many there are.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import {
  embeddingsAnswer,
  type LoopbackEmbeddingsServer,
  type RecordedEmbeddingsRequest,
  startLoopbackEmbeddings,
} from '@agent-ledger/embeddings/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const QUESTION = 'is the puppy still asleep';
const MODEL = 'openai-compatible:concepts';
const AXES = [/\b(dog|beagle|puppy)\b/g, /\b(build|esbuild|deploy)\b/g, /\b(baby|asleep)\b/g];
/** Turns appended after `nexus embed`: the baby turn, the filler after it, the question. */
const UNEMBEDDED = 21;

/** One axis per concept, and a small constant so no vector is all zeros. */
const conceptVectors = (request: RecordedEmbeddingsRequest) =>
  embeddingsAnswer(
    (request.body.input ?? []).map((text) => [...AXES.map((axis) => (text.toLowerCase().match(axis) ?? []).length), 0.01]),
  );

let embeddings: LoopbackEmbeddingsServer;
let temp: ReturnType<typeof tempFolder>;
let sessionId: string;
let beagleTurnId: string;
let babyTurnId: string;
let headTurnId: string;

const embeddedTexts = () => embeddings.requests.map((request) => request.body.input ?? []);
const withVectors = () => ({ NEXUS_EMBEDDINGS_URL: embeddings.baseURL, NEXUS_EMBEDDINGS_MODEL: 'concepts' });

/** The built CLI with only the NEXUS_ variables given, started on the test's ledger. */
function startNexus(args: string[], env: Record<string, string>) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(NEXUS_|OPENAI_|ANTHROPIC_)/.test(name)),
  );
  return spawn(process.execPath, [BUILT_CLI, ...args, '--db', temp.dbPath], { env: { ...inherited, ...env } });
}

async function nexus(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startNexus(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end();
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

const fillerTurns = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) =>
    (from + index) % 2 === 0
      ? { role: 'user' as const, content: `build ${from + index} runs esbuild before deploy` }
      : { role: 'assistant' as const, content: 'noted' },
  );

beforeAll(async () => {
  embeddings = await startLoopbackEmbeddings(conceptVectors);
  temp = tempFolder();
  const ledger = openAgentsLedger(temp.dbPath);
  sessionId = (await ledger.createSession({ label: 'pets and builds' })).id;
  beagleTurnId = (await ledger.appendTurn(sessionId, { role: 'user', content: 'my beagle snores at night and wakes everyone' }))
    .id;
  await ledger.appendTurns(sessionId, [{ role: 'assistant', content: 'earplugs might help' }, ...fillerTurns(0, 20)]);
  await ledger.close();
  const embedded = await nexus(['embed'], withVectors());
  expect(embedded.stdout, embedded.stderr).toMatch(/^embedded 22 turns of 1 session with openai-compatible:concepts/);
  const later = openAgentsLedger(temp.dbPath);
  babyTurnId = (await later.appendTurn(sessionId, { role: 'user', content: 'the baby was asleep by eight' })).id;
  await later.appendTurns(sessionId, fillerTurns(1, 19));
  headTurnId = (await later.appendTurn(sessionId, { role: 'user', content: QUESTION })).id;
  await later.close();
});

beforeEach(() => {
  embeddings.requests.length = 0;
});

afterAll(async () => {
  await embeddings.close();
  temp.cleanup();
});

const CONTEXT = () => ['context', sessionId, '--query', QUESTION, '--retrieve', '--budget', '300'];

describe('nexus context --retrieve on a line partly embedded', () => {
  it('ranks by the stored vectors and sends the query alone; bm25 still finds the turns without one', async () => {
    const run = await nexus([...CONTEXT(), '--json'], withVectors());
    expect(run.status, run.stderr).toBe(0);
    const built = JSON.parse(run.stdout) as { retrievedTurnIds: string[]; missingVectors: unknown };
    expect(embeddedTexts()).toEqual([[QUESTION]]);
    // The beagle shares no word with the question: its stored vector brings it.
    expect(built.retrievedTurnIds).toContain(beagleTurnId);
    expect(built.retrievedTurnIds).toContain(babyTurnId);
    expect(built.missingVectors).toEqual({ model: MODEL, turns: UNEMBEDDED, rankedByMeaning: true });
  });

  it('says how many turns only bm25 ranked, and to run `nexus embed`', async () => {
    const run = await nexus(CONTEXT(), withVectors());
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(
      `${UNEMBEDDED} turns of this line have no vector of ${MODEL} yet, so only bm25 ranked them: ` +
        '`nexus embed` (with the same settings) stores them',
    );
    expect(embeddedTexts()).toEqual([[QUESTION]]);
  });
});

describe('nexus mcp get_context with retrieve on a line partly embedded', () => {
  it('ranks as nexus context does: the stored vectors, the query alone sent', async () => {
    const child = startNexus(['mcp'], withVectors());
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_context', arguments: { turnId: headTurnId, query: QUESTION, retrieve: true, budget: 300 } },
    });
    let answer: {
      id?: number;
      result?: { structuredContent?: { retrievedTurnIds: string[]; missingVectors?: unknown } };
    } = {};
    while (answer.id !== 2) answer = JSON.parse((await lines.next()).value as string);
    child.stdin.end();
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
    expect(embeddedTexts()).toEqual([[QUESTION]]);
    const retrieved = answer.result?.structuredContent?.retrievedTurnIds;
    expect(retrieved).toContain(beagleTurnId);
    expect(retrieved).toContain(babyTurnId);
    // The client is told how many turns only bm25 could rank.
    expect(answer.result?.structuredContent?.missingVectors).toEqual({ model: MODEL, turns: UNEMBEDDED, rankedByMeaning: true });
  });
});
