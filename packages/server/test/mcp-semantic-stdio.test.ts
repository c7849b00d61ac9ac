// `nexus mcp` as the built binary, through the SDK's StdioClientTransport, with NEXUS_EMBEDDINGS_*
// pointing at a real OpenAI-compatible server on loopback: search_history mode "semantic" ranks the
// vectors `nexus embed` stored. Without the variables the same call is refused with what to set, and
// the embeddings server is never called.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConceptEmbeddingsServer, startConceptEmbeddings } from './concept-embeddings.ts';

const repository = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUILT_CLI = path.join(repository, 'apps/cli/dist/bin/nexus.js');

let folder: string;
let dbPath: string;
let embeddings: ConceptEmbeddingsServer;
let beagleTurnId: string;

beforeAll(async () => {
  embeddings = await startConceptEmbeddings();
  folder = mkdtempSync(path.join(tmpdir(), 'nexus-mcp-semantic-'));
  dbPath = path.join(folder, 'ledger.db');
  const ledger = openAgentsLedger(dbPath);
  const session = await ledger.createSession({ label: 'pets' });
  beagleTurnId = (await ledger.appendTurn(session.id, { role: 'user', content: 'my beagle snores at night' })).id;
  await ledger.appendTurn(session.id, { role: 'assistant', content: 'the build uses esbuild' });
  await ledger.close();
  // Asynchronous: the embeddings server answers from this process's event loop.
  await promisify(execFile)(process.execPath, [BUILT_CLI, 'embed', '--db', dbPath], { env: environment(true) });
});

afterAll(async () => {
  await embeddings.close();
  rmSync(folder, { recursive: true, force: true });
});

function environment(withEmbeddings: boolean): Record<string, string> {
  return {
    ...getDefaultEnvironment(),
    ...(withEmbeddings ? { NEXUS_EMBEDDINGS_URL: embeddings.baseURL, NEXUS_EMBEDDINGS_MODEL: 'concepts' } : {}),
  };
}

async function withMcp<T>(withEmbeddings: boolean, work: (client: Client) => Promise<T>): Promise<{ result: T; stderr: string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUILT_CLI, 'mcp', '--db', dbPath],
    env: environment(withEmbeddings),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'semantic-stdio-test', version: '0' });
  try {
    await client.connect(transport);
    return { result: await work(client), stderr };
  } finally {
    await client.close();
  }
}

type ToolAnswer = { content: { text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

describe('nexus mcp with NEXUS_EMBEDDINGS_*', () => {
  it('answers search_history mode "semantic" from the stored vectors', async () => {
    const before = embeddings.texts.length;
    const { result, stderr } = await withMcp(true, async (client) => {
      const answer = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'is the puppy asleep', mode: 'semantic' },
      })) as ToolAnswer;
      return answer;
    });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    const found = result.structuredContent as { model: string; hits: { turnId: string }[]; unembedded: number };
    expect(found).toMatchObject({ model: 'openai-compatible:concepts', unembedded: 0 });
    expect(found.hits[0]?.turnId).toBe(beagleTurnId);
    // Only the question was embedded: the turns' vectors were read from the ledger.
    expect(embeddings.texts.slice(before)).toEqual(['is the puppy asleep']);
    expect(stderr).toMatch(/embeddings openai-compatible:concepts/);
  }, 60_000);

  it('without them: refuses with what to set, calls no endpoint, and still searches by words', async () => {
    const before = embeddings.texts.length;
    const { result, stderr } = await withMcp(false, async (client) => {
      const semantic = (await client.callTool({
        name: 'search_history',
        arguments: { query: 'puppy', mode: 'semantic' },
      })) as ToolAnswer;
      const words = (await client.callTool({ name: 'search_history', arguments: { query: 'beagle' } })) as ToolAnswer;
      return { semantic, words };
    });
    expect(result.semantic.isError).toBe(true);
    expect(result.semantic.content[0]?.text).toMatch(
      /^EMBEDDER_NOT_CONFIGURED: .*\$NEXUS_EMBEDDINGS_URL and \$NEXUS_EMBEDDINGS_MODEL/,
    );
    expect((result.words.structuredContent as { hits: { via: string | null; turnId: string }[] }).hits[0]?.turnId).toBe(
      beagleTurnId,
    );
    expect(embeddings.texts.length).toBe(before);
    expect(stderr).toBe(`nexus mcp: serving ${dbPath} on stdio\n`);
  }, 60_000);
});
