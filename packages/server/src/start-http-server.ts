// Puts the HTTP app on a socket. Refuses a non-loopback address without a token: the ledger holds
// whole conversations, and an open port on a shared network would hand them to anyone.

import type { AddressInfo } from 'node:net';
import { InvalidInputError } from '@agent-ledger/core';
import { serve } from '@hono/node-server';
import { isLoopbackHost } from './access-guard.ts';
import { DEFAULT_HOST, DEFAULT_PORT } from './defaults.ts';
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
  /**
   * Graceful: stops accepting connections, ends live streams, lets requests in flight finish
   * (cut after `graceMs`, default 5 s) and resolves when the socket is closed.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

export const DEFAULT_CLOSE_GRACE_MS = 5000;

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
  const { maxBodyBytes } = options;
  if (maxBodyBytes !== undefined && (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1)) {
    // 0 would refuse every request body: a typo, not a setting.
    throw new InvalidInputError(`The body limit must be at least 1 byte, got ${maxBodyBytes} (--max-body).`, 'maxBodyBytes');
  }
  const shutdown = new AbortController();
  const app = createHttpApp({ ...options, shutdown: shutdown.signal });
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
    close: ({ graceMs = DEFAULT_CLOSE_GRACE_MS } = {}) =>
      new Promise<void>((resolve, reject) => {
        shutdown.abort();
        // Keep-alive connections turn idle as their last response ends (streams end on the abort
        // above): close them as they do, and cut whatever is still open after the grace period.
        const closable = server as unknown as { closeIdleConnections?(): void; closeAllConnections?(): void };
        const sweep = setInterval(() => closable.closeIdleConnections?.(), 25);
        const cut = setTimeout(() => closable.closeAllConnections?.(), graceMs);
        server.close((error) => {
          clearInterval(sweep);
          clearTimeout(cut);
          if (error) reject(error);
          else resolve();
        });
        closable.closeIdleConnections?.();
      }),
  };
}
