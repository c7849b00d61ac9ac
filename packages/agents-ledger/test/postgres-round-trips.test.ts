// On PostgreSQL each round trip to the server costs more than the work it carries, so the hot paths
// are counted in round trips, on the wire: a loopback proxy sits between the ledger and the real
// server and counts the client's Sync and Query messages (each ends one round trip of the extended
// or the simple protocol). A single append (head known) is one round trip, where BEGIN, UPDATE,
// INSERT and COMMIT were four; a context at the head is one, where four reads were four.

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentsLedger, openAgentsLedger } from '../src/index.ts';
import { appendConversation, freshLocation, postgresServer, SMALL_SETTINGS } from './builders.ts';

interface CountingProxy {
  url: string;
  /** Round trips the clients started since the last reset. */
  roundTrips(): number;
  reset(): void;
  close(): Promise<void>;
}

/** Counts the frontend messages that end a round trip: Sync ('S') and simple Query ('Q'). */
function messageCounter(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      // The startup message has no type byte: a length, then the protocol (or an SSL request).
      if (!started) {
        if (pending.length < 4) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        started = pending.readInt32BE(4) !== 80877103; // an SSL request is followed by the real startup
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) return;
      const type = String.fromCharCode(pending[0] as number);
      if (type === 'S' || type === 'Q') onRoundTrip();
      pending = pending.subarray(length + 1);
    }
  };
}

async function countingProxy(target: string): Promise<CountingProxy> {
  const targetUrl = new URL(target);
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetUrl.port || 5432), targetUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    const counted = messageCounter(() => {
      count += 1;
    });
    client.on('data', (chunk: Buffer) => {
      counted(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    roundTrips: () => count,
    reset: () => {
      count = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const server = postgresServer();

describe.skipIf(server === null)('round trips to PostgreSQL, counted on the wire', () => {
  let proxy: CountingProxy;
  let ledger: AgentsLedger;

  beforeAll(async () => {
    const { location } = await freshLocation('postgres', 'round_trips');
    proxy = await countingProxy(location);
    ledger = openAgentsLedger(proxy.url);
  });

  afterAll(async () => {
    await ledger?.close();
    await proxy?.close();
  });

  it('appends a turn in one round trip once the head is known, and builds the context at the head in one', async () => {
    const session = await ledger.createSession({ settings: SMALL_SETTINGS });
    await appendConversation(ledger, session.id, 60);
    if (await ledger.shouldCompact(session.id)) await ledger.compact(session.id, { trigger: 'threshold' });
    const first = await ledger.appendTurn(session.id, { role: 'user', content: 'Where were we?' });

    proxy.reset();
    const second = await ledger.appendTurn(session.id, { role: 'assistant', content: 'At the river.' });
    expect(proxy.roundTrips()).toBe(1);
    expect(second.parentTurnId).toBe(first.id);

    proxy.reset();
    const context = await ledger.buildContext(second.id, { budgetTokens: 600 });
    expect(proxy.roundTrips()).toBe(1);
    expect(context.includedTurnIds.at(-1)).toBe(second.id);

    // A writer that planned on a head that moved writes nothing and is told so.
    const stale = ledger.appendTurn(session.id, { role: 'user', content: 'Late.', expectedHeadTurnId: first.id });
    await expect(stale).rejects.toMatchObject({ code: 'HEAD_CONFLICT' });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(second.id);
  });
});
