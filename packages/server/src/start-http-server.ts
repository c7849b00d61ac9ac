// Puts the HTTP app on a socket. Refuses a non-loopback address without a token: the ledger holds
// whole conversations, and an open port on a shared network would hand them to anyone.

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { InvalidInputError } from '@nexus/core';
import { isLoopbackHost } from './access-guard.ts';
import { createHttpApp, type HttpAppOptions } from './http-app.ts';
import { HttpError } from './http-errors.ts';

export interface HttpServerOptions extends HttpAppOptions {
  /** 127.0.0.1 by default. */
  host?: string;
  /** 7700 by default; 0 picks a free port. */
  port?: number;
}

export interface RunningHttpServer {
  /** `http://HOST:PORT`, with the port actually bound. */
  url: string;
  /** Stops accepting connections, ends open streams and resolves when the socket is closed. */
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7700;

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  if (!isLoopbackHost(host) && !options.token) {
    throw new InvalidInputError(
      `Refusing to listen on ${host} without a token: anyone who can reach it could read and write the ledger. ` +
        'Pass --token (or set NEXUS_TOKEN), or listen on 127.0.0.1.',
      'host',
    );
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidInputError(`Port ${port} is not 0–65535.`, 'port');
  const app = createHttpApp(options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(started));
    started.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new HttpError('ADDRESS_IN_USE', `Port ${port} on ${host} is in use; pick another with --port (0 picks a free one).`),
        );
      } else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
        reject(new HttpError('ADDRESS_NOT_AVAILABLE', `Cannot listen on ${host}: no such local address.`));
      } else reject(error);
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Live streams never end on their own: close idle and streaming connections so close() returns.
        if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections();
      }),
  };
}
