// The CLI's contexts and servers with NEXUS_EMBEDDINGS_* set and unset, as a user runs them: the
// built binary as a process, a real ledger file, and a real OpenAI-compatible /v1/embeddings server
// on loopback whose vectors put "puppy" and "beagle" on one axis (bm25 sees no shared word). Set,
// `nexus context --retrieve`, `nexus serve` (search by meaning, hybrid contexts) and `nexus chat`
// rank by vectors; unset, nothing changes and the endpoint is never called.

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import {
  embeddingsAnswer,
  type LoopbackEmbeddingsServer,
  type RecordedEmbeddingsRequest,
  startLoopbackEmbeddings,
} from '@agent-ledger/embeddings/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from './built-cli.ts';
import { tempFolder } from './run-cli.ts';

const QUESTION = 'is the puppy still asleep';
const AXES = [/\b(dog|dogs|beagle|puppy|puppies)\b/g, /\b(build|esbuild|deploy|compile)\b/g, /\b(lunch|coffee|noon)\b/g];

/** One axis per concept, and a small constant so no vector is all zeros. */
const conceptVectors = (request: RecordedEmbeddingsRequest) =>
  embeddingsAnswer(
    (request.body.input ?? []).map((text) => [...AXES.map((axis) => (text.toLowerCase().match(axis) ?? []).length), 0.01]),
  );

let embeddings: LoopbackEmbeddingsServer;
let temp: ReturnType<typeof tempFolder>;
let sessionId: string;
let beagleTurnId: string;
let headTurnId: string;

/** Every text the embeddings server has been sent, in order. */
const embeddedTexts = () => embeddings.requests.flatMap((request) => request.body.input ?? []);
const withVectors = () => ({ NEXUS_EMBEDDINGS_URL: embeddings.baseURL, NEXUS_EMBEDDINGS_MODEL: 'concepts' });

/** The built CLI with only this environment's NEXUS_ variables; asynchronous, so the loopback server can answer. */
function nexus(
  args: string[],
  env: Record<string, string> = {},
  stdin = '',
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(NEXUS_|OPENAI_|ANTHROPIC_)/.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args, '--db', temp.dbPath], { env: { ...inherited, ...env } });
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
    child.stdin.end(stdin);
  });
}

beforeAll(async () => {
  embeddings = await startLoopbackEmbeddings(conceptVectors);
  temp = tempFolder();
  const ledger = openAgentsLedger(temp.dbPath);
  const session = await ledger.createSession({ label: 'pets and builds' });
  sessionId = session.id;
  beagleTurnId = (await ledger.appendTurn(sessionId, { role: 'user', content: 'my beagle snores at night and wakes everyone' }))
    .id;
  await ledger.appendTurn(sessionId, { role: 'assistant', content: 'earplugs might help with the snoring' });
  for (let index = 0; index < 30; index += 1) {
    await ledger.appendTurn(sessionId, {
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `the build step ${index} runs esbuild before deploy and lunch is at noon`,
    });
  }
  headTurnId = (await ledger.appendTurn(sessionId, { role: 'user', content: QUESTION })).id;
  await ledger.close();
});

afterAll(async () => {
  await embeddings.close();
  temp.cleanup();
});

const CONTEXT = () => ['context', sessionId, '--query', QUESTION, '--retrieve', '--budget', '300'];

describe('nexus context --retrieve', () => {
  it('unset: bm25 alone, nothing loaded, no endpoint called', async () => {
    const run = await nexus([...CONTEXT(), '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { retrievedTurnIds: string[] }).retrievedTurnIds).not.toContain(beagleTurnId);
    expect(embeddings.requests).toHaveLength(0);
  });

  it('set, before `nexus embed`: says the line has no vectors and calls no endpoint (a read-only command stores none)', async () => {
    const run = await nexus(CONTEXT(), withVectors());
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'turns of this line have no vector of openai-compatible:concepts yet, so this context ranked by bm25 alone: `nexus embed`',
    );
    // No vector of the model is stored: the ledger sends nothing, not even the query, and ranks by bm25.
    expect(embeddedTexts()).toEqual([]);
  });

  it('set, after `nexus embed`: the turn that means the same comes first, and only the query is embedded', async () => {
    const embedded = await nexus(['embed'], withVectors());
    expect(embedded.stdout, embedded.stderr).toMatch(/^embedded 33 turns of 1 session with openai-compatible:concepts/);
    const before = embeddedTexts().length;
    const run = await nexus([...CONTEXT(), '--json'], withVectors());
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { retrievedTurnIds: string[] }).retrievedTurnIds[0]).toBe(beagleTurnId);
    expect(embeddedTexts().slice(before)).toEqual([QUESTION]);
  });

  it('half a setting is a usage error naming the other half', async () => {
    const run = await nexus(CONTEXT(), { NEXUS_EMBEDDINGS_URL: embeddings.baseURL });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('$NEXUS_EMBEDDINGS_URL is set but $NEXUS_EMBEDDINGS_MODEL is not');
  });
});

/** `nexus serve --port 0` with this environment: its URL and first lines, and how to stop it. */
async function startServe(env: Record<string, string>): Promise<{ url: string; lines: string[]; stop(): Promise<number> }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(NEXUS_|OPENAI_)/.test(name)));
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [BUILT_CLI, 'serve', '--db', temp.dbPath, '--port', '0'],
    {
      env: { ...inherited, ...env },
    },
  );
  const iterator = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const lines: string[] = [];
  // Two lines, and a third when vectors are on.
  const count = env.NEXUS_EMBEDDINGS_URL ? 3 : 2;
  for (let index = 0; index < count; index += 1) lines.push((await iterator.next()).value as string);
  const url = /^listening on (http:\/\/\S+)$/.exec(lines[0] ?? '')?.[1] as string;
  return {
    url,
    lines,
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number;
    },
  };
}

describe('nexus serve', () => {
  it('set: searches by meaning and fuses vectors into hybrid contexts', async () => {
    const server = await startServe(withVectors());
    try {
      expect(server.lines[2]).toBe(
        `embeddings: openai-compatible:concepts at ${embeddings.baseURL}/embeddings (search by meaning, vectors in contexts)`,
      );
      const words = (await (await fetch(`${server.url}/v1/search?q=puppy&raw=true`)).json()) as { hits: { turnId: string }[] };
      expect(words.hits.map((hit) => hit.turnId)).toEqual([headTurnId]);
      const meaning = await fetch(`${server.url}/v1/search?q=puppy&mode=semantic&limit=3&session=${sessionId}`);
      expect(meaning.status).toBe(200);
      const found = (await meaning.json()) as { model: string; hits: { turnId: string }[]; unembedded: number };
      expect(found.model).toBe('openai-compatible:concepts');
      expect(found.hits).toHaveLength(3);
      // The question and the beagle lie on the dog axis alike (a tie goes to the later turn); the builds do not.
      expect(found.hits.slice(0, 2).map((hit) => hit.turnId)).toEqual([headTurnId, beagleTurnId]);
      const query = encodeURIComponent(QUESTION);
      const context = await fetch(`${server.url}/v1/turns/${headTurnId}/context?retrieval=true&query=${query}&budget=300`);
      expect(((await context.json()) as { retrievedTurnIds: string[] }).retrievedTurnIds[0]).toBe(beagleTurnId);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('unset: prints what it always did, and a search by meaning is a 400 naming what to set', async () => {
    const before = embeddings.requests.length;
    const server = await startServe({});
    try {
      expect(server.lines).toEqual([`listening on ${server.url}`, 'no token: loopback only']);
      const refused = await fetch(`${server.url}/v1/search?q=puppy&mode=semantic`);
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('EMBEDDER_NOT_CONFIGURED');
      expect(body.error.message).toContain('set $NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL');
      const query = encodeURIComponent(QUESTION);
      const context = await fetch(`${server.url}/v1/turns/${headTurnId}/context?retrieval=true&query=${query}&budget=300`);
      expect(((await context.json()) as { retrievedTurnIds: string[] }).retrievedTurnIds).not.toContain(beagleTurnId);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(embeddings.requests.length).toBe(before);
  });
});

describe('nexus chat', () => {
  it('set: each prompt embeds the message to recall by meaning; unset: no call', async () => {
    const before = embeddedTexts().length;
    const off = await nexus(['chat', '--offline', '--session', sessionId], {}, 'where does the dog sleep\n');
    expect(off.status, off.stderr).toBe(0);
    expect(off.stdout).not.toContain('recall ranks turns by meaning');
    expect(embeddedTexts().length).toBe(before);
    const on = await nexus(['chat', '--offline', '--session', sessionId], withVectors(), 'where does the dog sleep now\n');
    expect(on.status, on.stderr).toBe(0);
    expect(on.stdout).toContain(
      `recall ranks turns by meaning too: openai-compatible:concepts at ${embeddings.baseURL}/embeddings`,
    );
    expect(embeddedTexts().slice(before)).toContain('where does the dog sleep now');
  });

  it('says so in --help of serve, mcp, context and chat', async () => {
    for (const command of ['serve', 'mcp', 'context', 'chat']) {
      const help = await nexus([command, '--help']);
      expect(help.stdout, command).toContain('$NEXUS_EMBEDDINGS_URL and $NEXUS_EMBEDDINGS_MODEL');
    }
  });
});
