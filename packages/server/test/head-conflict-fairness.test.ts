// Many clients appending to one session over real HTTP on loopback, in the two ways the API offers.
// Without expectedHeadTurnId the server appends at whatever the head is: every append lands, none is
// refused. With it, a stale head is a 409 carrying Retry-After; clients that wait as told all get
// their turns in within a bounded number of retries each (with immediate retries the fastest
// client kept winning and another lost hundreds of times in a row).

import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../src/index.ts';
import { jsonRequest, openFixture } from './server-fixture.ts';

const CLIENTS = 6;
const TURNS_EACH = 12;
/** Retries one turn may take when clients honour Retry-After: about one per other client, and slack. */
const RETRY_BOUND = 2 * CLIENTS;

interface ChainTurn {
  id: string;
  parentTurnId: string | null;
  depth: number;
  text: string;
}

async function chainOf(fixture: ReturnType<typeof openFixture>, sessionId: string): Promise<ChainTurn[]> {
  const stored = await fixture.ledger.getSession(sessionId);
  const chain: ChainTurn[] = [];
  for await (const turn of fixture.ledger.getFullHistory(stored.headTurnId as string)) {
    if (turn.turnType !== 'normal') throw new Error('no compaction expected');
    chain.push({
      id: turn.id,
      parentTurnId: turn.parentTurnId,
      depth: turn.depth,
      text: (turn.content[0] as { text: string }).text,
    });
  }
  return chain;
}

/** One chain, every turn once, each client's turns in its own order. */
function expectWholeChain(chain: ChainTurn[], clients: number, turnsEach: number): void {
  expect(chain).toHaveLength(clients * turnsEach);
  chain.forEach((turn, index) => {
    expect(turn.depth).toBe(index);
    expect(turn.parentTurnId).toBe(index === 0 ? null : chain[index - 1]?.id);
  });
  const texts = chain.map((turn) => turn.text);
  expect(new Set(texts).size).toBe(texts.length);
  for (let client = 0; client < clients; client += 1) {
    const own = texts.filter((text) => text.startsWith(`client ${client} `));
    expect(own).toEqual(Array.from({ length: turnsEach }, (_, turn) => `client ${client} turn ${turn}`));
  }
}

/** How long a 409 asks to wait, in ms, by the header the client reads; NaN when it asks nothing. */
function retryDelayMs(response: Response, honours: 'Retry-After-Ms' | 'Retry-After'): number {
  const value = response.headers.get(honours);
  if (value === null || !/^\d+$/.test(value)) return Number.NaN;
  return honours === 'Retry-After' ? Number(value) * 1000 : Number(value);
}

describe('many writers on one session over HTTP', () => {
  it('without expectedHeadTurnId: every append lands, none refused', async () => {
    const fixture = openFixture();
    const server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
    const clients = 8;
    const turnsEach = 15;
    const refused: string[] = [];
    try {
      const sessionId = await createSession(server.url);
      const client = async (index: number) => {
        for (let turn = 0; turn < turnsEach; turn += 1) {
          const response = await appendTurn(server.url, sessionId, { role: 'user', content: `client ${index} turn ${turn}` });
          if (response.status !== 201) refused.push(`${response.status} ${await response.text()}`);
          else await response.body?.cancel();
        }
      };
      await Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
      expect(refused).toEqual([]);
      expectWholeChain(await chainOf(fixture, sessionId), clients, turnsEach);
    } finally {
      await server.close();
      await fixture.cleanup();
    }
  }, 60_000);

  for (const honours of ['Retry-After-Ms', 'Retry-After'] as const) {
    it(`with expectedHeadTurnId: clients that honour ${honours} each finish within a bounded number of retries`, async () => {
      const fixture = openFixture();
      const server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
      const delays: number[] = [];
      let retriesPerTurn: number[] = [];
      try {
        const sessionId = await createSession(server.url);
        const clients = Array.from({ length: CLIENTS }, (_, index) =>
          guardedClient({ url: server.url, sessionId, index, turns: TURNS_EACH, honours, delays }),
        );
        retriesPerTurn = (await Promise.all(clients)).flat();
        expectWholeChain(await chainOf(fixture, sessionId), CLIENTS, TURNS_EACH);
      } finally {
        await server.close();
        await fixture.cleanup();
      }
      const worst = Math.max(...retriesPerTurn);
      const total = retriesPerTurn.reduce((sum, retries) => sum + retries, 0);
      console.log(`fairness (${honours}): ${CLIENTS} clients × ${TURNS_EACH} turns, ${total} retries, worst turn ${worst}`);
      // Every 409 said how long to wait, and not all the same: the jitter spreads the herd.
      expect(delays.filter((delay) => Number.isNaN(delay))).toEqual([]);
      if (honours === 'Retry-After-Ms') expect(new Set(delays).size).toBeGreaterThan(1);
      expect(worst).toBeLessThanOrEqual(RETRY_BOUND);
    }, 120_000);
  }

  it('guarded clients beside unguarded ones: the guarded finish within the bound, the unguarded are never refused', async () => {
    const fixture = openFixture();
    const server = await startHttpServer({ ledger: fixture.ledger, events: fixture.events, port: 0 });
    const delays: number[] = [];
    const refused: string[] = [];
    let retriesPerTurn: number[] = [];
    try {
      const sessionId = await createSession(server.url);
      const guarded = Array.from({ length: CLIENTS / 2 }, (_, index) =>
        guardedClient({ url: server.url, sessionId, index, turns: TURNS_EACH, honours: 'Retry-After-Ms', delays }),
      );
      const unguarded = Array.from({ length: CLIENTS / 2 }, async (_, offset) => {
        const index = CLIENTS / 2 + offset;
        for (let turn = 0; turn < TURNS_EACH; turn += 1) {
          const response = await appendTurn(server.url, sessionId, { role: 'user', content: `client ${index} turn ${turn}` });
          if (response.status !== 201) refused.push(`${response.status} ${await response.text()}`);
          else await response.body?.cancel();
        }
      });
      retriesPerTurn = (await Promise.all(guarded)).flat();
      await Promise.all(unguarded);
      expectWholeChain(await chainOf(fixture, sessionId), CLIENTS, TURNS_EACH);
    } finally {
      await server.close();
      await fixture.cleanup();
    }
    console.log(`fairness (mixed): worst guarded turn ${Math.max(...retriesPerTurn)} retries`);
    expect(refused).toEqual([]);
    expect(Math.max(...retriesPerTurn)).toBeLessThanOrEqual(RETRY_BOUND);
  }, 120_000);
});

async function createSession(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/sessions`, jsonRequest('POST', { label: 'race' }));
  return ((await response.json()) as { id: string }).id;
}

function appendTurn(url: string, sessionId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/v1/sessions/${sessionId}/turns`, jsonRequest('POST', body));
}

interface GuardedClient {
  url: string;
  sessionId: string;
  index: number;
  turns: number;
  /** Which header the client waits by. */
  honours: 'Retry-After-Ms' | 'Retry-After';
  /** Every wait a 409 asked for is pushed here (NaN when it asked for none). */
  delays: number[];
}

/** Appends its turns guarded by the head it last saw; on 409 waits as told and retries from the head given. */
async function guardedClient({ url, sessionId, index, turns, honours, delays }: GuardedClient): Promise<number[]> {
  const retriesPerTurn: number[] = [];
  let head: string | null = null;
  for (let turn = 0; turn < turns; turn += 1) {
    let retries = 0;
    for (;;) {
      const response = await appendTurn(url, sessionId, {
        role: 'user',
        content: `client ${index} turn ${turn}`,
        expectedHeadTurnId: head,
      });
      const body = (await response.json()) as { headTurnId: string; error?: { code: string; headTurnId: string | null } };
      if (response.status === 201) {
        head = body.headTurnId;
        break;
      }
      expect(response.status).toBe(409);
      expect(body.error?.code).toBe('HEAD_CONFLICT');
      retries += 1;
      head = body.error?.headTurnId ?? null;
      const delay = retryDelayMs(response, honours);
      delays.push(delay);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    }
    retriesPerTurn.push(retries);
  }
  return retriesPerTurn;
}
