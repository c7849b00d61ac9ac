// Measures the HTTP API on this machine (not a test: wall-clock figures are reported, never
// asserted). Run: npx tsx packages/server/test/measure-http.ts [appends=2000]
// Sequential requests from one client over a real socket on 127.0.0.1, against a fresh SQLite file.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAgentsLedger } from '@agent-ledger/agents-ledger';
import { storeOf } from '@agent-ledger/agents-ledger/testing';
import { createEventsLedger } from '@agent-ledger/events-ledger';
import { startHttpServer } from '../src/index.ts';

const appends = Number(process.argv[2] ?? 2000);
const folder = mkdtempSync(path.join(tmpdir(), 'nexus-measure-'));
const dbPath = path.join(folder, 'ledger.db');
const ledger = openAgentsLedger(dbPath);
const events = createEventsLedger({ store: storeOf(ledger) });
const server = await startHttpServer({ ledger, events, port: 0, logError: () => {} });
const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (share: number) => (sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number).toFixed(2);
  const total = samples.reduce((sum, value) => sum + value, 0);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms, ${(samples.length / (total / 1000)).toFixed(0)} requests/s`;
}

async function timed(count: number, request: (index: number) => Promise<Response>) {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    const response = await request(index);
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status >= 400) throw new Error(`HTTP ${response.status}`);
  }
  return samples;
}

try {
  const session = (await (await fetch(`${server.url}/v1/sessions`, json({ label: 'measure' }))).json()) as { id: string };
  const words = ['postgres', 'replica', 'vacuum', 'backup', 'restic', 'alert', 'grafana', 'deploy', 'kestrel', 'heron'];
  let head: string | null = null;
  const append = await timed(appends, async (index) => {
    const response = await fetch(
      `${server.url}/v1/sessions/${session.id}/turns`,
      json({
        role: index % 2 ? 'assistant' : 'user',
        content: `turn ${index}: ${words[index % 10]} ${words[(index * 7) % 10]} and some ordinary words`,
        expectedHeadTurnId: head,
      }),
    );
    if (response.status === 201) head = ((await response.clone().json()) as { headTurnId: string }).headTurnId;
    return response;
  });
  console.log(`POST /v1/sessions/{id}/turns (one turn, guarded): ${percentiles(append)} over ${appends}`);
  const batch = await timed(100, (index) =>
    fetch(
      `${server.url}/v1/sessions/${session.id}/turns`,
      json({
        turns: Array.from({ length: 50 }, (_, turn) => ({
          role: 'user',
          content: `batch ${index} turn ${turn} ${words[turn % 10]}`,
        })),
      }),
    ),
  );
  console.log(`POST /v1/sessions/{id}/turns (batch of 50): ${percentiles(batch)} over 100`);
  const headId = (await ledger.getSession(session.id)).headTurnId as string;
  console.log(
    `GET /v1/turns/{id}/context?budget=8000: ${percentiles(await timed(500, () => fetch(`${server.url}/v1/turns/${headId}/context?budget=8000`)))} over 500`,
  );
  console.log(
    `GET /v1/search?q=kestrel: ${percentiles(await timed(500, () => fetch(`${server.url}/v1/search?q=kestrel&limit=20`)))} over 500`,
  );
  console.log(
    `GET /v1/sessions/{id}: ${percentiles(await timed(1000, () => fetch(`${server.url}/v1/sessions/${session.id}`)))} over 1000`,
  );
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/turns/${headId}/history`);
  const lines = (await response.text()).trimEnd().split('\n').length;
  console.log(`GET /v1/turns/{id}/history: ${lines} turns as NDJSON in ${(performance.now() - started).toFixed(0)} ms`);
} finally {
  await server.close();
  await ledger.close();
  rmSync(folder, { recursive: true, force: true });
}
