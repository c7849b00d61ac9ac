// For tests (`@agent-ledger/store-postgres/testing`): a loopback proxy between a store and a real
// PostgreSQL server that reads what the store
// sends: the connections it opens, its round trips (each Sync or simple Query message ends one), and
// the text of each statement (a simple Query's, or a Parse's). Nothing is faked: every byte goes on
// to the server and every answer comes back unchanged.

import net from 'node:net';

export interface StatementProxy {
  /** The server's URL with the proxy's host and port in its place. */
  url: string;
  /** Backend connections opened through the proxy since the last reset. */
  connections(): number;
  /** Round trips started since the last reset. */
  roundTrips(): number;
  /** Round trips started since the last reset or take, then counts again from 0. */
  take(): number;
  /** The statements sent since the last reset, in order. */
  statements(): string[];
  /** Each connection's startup parameters (user, database, options, …) since the last reset. */
  startupParameters(): Array<Record<string, string>>;
  reset(): void;
  close(): Promise<void>;
}

interface Traffic {
  connections: number;
  roundTrips: number;
  statements: string[];
  startups: Array<Record<string, string>>;
}

/** A startup message's parameters: name and value strings after the protocol version, to an empty name. */
function startupParameters(body: Buffer): Record<string, string> {
  const parameters: Record<string, string> = {};
  let offset = 8;
  while (offset < body.length && body[offset] !== 0) {
    const name = cString(body, offset);
    const value = cString(body, name.next);
    parameters[name.text] = value.text;
    offset = value.next;
  }
  return parameters;
}

/** The first NUL-terminated string of `body` from `offset`, and where the next field starts. */
function cString(body: Buffer, offset: number): { text: string; next: number } {
  const end = body.indexOf(0, offset);
  return { text: body.toString('utf8', offset, end), next: end + 1 };
}

/** Reads the frontend messages of one connection as they arrive, in chunks of any size. */
function frontendReader(traffic: Traffic): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      // The startup message has no type byte: a length, then the protocol (or an SSL request first).
      if (!started) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        started = pending.readInt32BE(4) !== 80877103;
        if (started) traffic.startups.push(startupParameters(pending.subarray(0, length)));
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) return;
      const type = String.fromCharCode(pending[0] as number);
      const body = pending.subarray(5, length + 1);
      if (type === 'Q') traffic.statements.push(cString(body, 0).text);
      if (type === 'P') traffic.statements.push(cString(body, cString(body, 0).next).text);
      if (type === 'S' || type === 'Q') traffic.roundTrips += 1;
      pending = pending.subarray(length + 1);
    }
  };
}

export async function statementProxy(target: string): Promise<StatementProxy> {
  const targetUrl = new URL(target);
  const traffic: Traffic = { connections: 0, roundTrips: 0, statements: [], startups: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    traffic.connections += 1;
    const upstream = net.connect(Number(targetUrl.port || 5432), targetUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    const read = frontendReader(traffic);
    client.on('data', (chunk: Buffer) => {
      read(chunk);
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
    connections: () => traffic.connections,
    roundTrips: () => traffic.roundTrips,
    take: () => {
      const taken = traffic.roundTrips;
      traffic.roundTrips = 0;
      return taken;
    },
    statements: () => [...traffic.statements],
    startupParameters: () => traffic.startups.map((parameters) => ({ ...parameters })),
    reset: () => {
      traffic.connections = 0;
      traffic.roundTrips = 0;
      traffic.statements = [];
      traffic.startups = [];
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
