// Who may call the API. With a token every /v1 and /mcp request needs `Authorization: Bearer <token>`
// (compared in constant time). Without one the server listens on loopback only, and two browser
// attacks on a loopback service are closed: DNS rebinding (a Host that is not a loopback name) and
// cross-site writes (a POST whose Origin is another site, or whose body is declared as anything but JSON).

import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError, respondWithError } from './http-errors.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return LOOPBACK_NAMES.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) || name.endsWith('.localhost');
}

/** True when `given` equals `expected`, taking the same time for every `given` of the same length. */
export function tokensMatch(given: string, expected: string): boolean {
  const givenBytes = Buffer.from(given, 'utf8');
  const expectedBytes = Buffer.from(expected, 'utf8');
  // timingSafeEqual needs equal lengths; comparing the expected token with itself keeps the time
  // the same when the lengths differ, so only the length leaks, never a prefix.
  const equal = timingSafeEqual(givenBytes.length === expectedBytes.length ? givenBytes : expectedBytes, expectedBytes);
  return equal && givenBytes.length === expectedBytes.length;
}

export function requireToken(token: string): MiddlewareHandler {
  return async (context, next) => {
    const header = context.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !tokensMatch(match[1] as string, token)) {
      context.header('WWW-Authenticate', 'Bearer realm="nexus"');
      return respondWithError(
        context,
        new HttpError(
          'UNAUTHORIZED',
          'This server needs `Authorization: Bearer <token>` (the --token or NEXUS_TOKEN it was started with).',
        ),
      );
    }
    return next();
  };
}

function hostName(hostHeader: string): string {
  // "[::1]:7700" → "[::1]", "localhost:7700" → "localhost"
  const bracketed = /^(\[[^\]]*\])(?::\d+)?$/.exec(hostHeader);
  if (bracketed) return bracketed[1] as string;
  return hostHeader.replace(/:\d+$/, '');
}

/** Without a token: only loopback Host names, and no cross-site writes. */
export function loopbackOnly(): MiddlewareHandler {
  return async (context, next) => {
    const host = context.req.header('host') ?? new URL(context.req.url).host;
    if (!isLoopbackHost(hostName(host))) {
      return respondWithError(
        context,
        new HttpError(
          'FORBIDDEN_HOST',
          `Host "${host}" is not a loopback name; start the server with --token to serve other hosts.`,
        ),
      );
    }
    return next();
  };
}

/** Writes must come from this origin (or a non-browser client), with a body typed as JSON or not typed at all. */
export function sameOriginWrites(): MiddlewareHandler {
  return async (context, next) => {
    if (context.req.method === 'GET' || context.req.method === 'HEAD') return next();
    const origin = context.req.header('origin');
    const host = context.req.header('host') ?? new URL(context.req.url).host;
    if (origin !== undefined && origin !== 'null') {
      let originHost: string | null = null;
      try {
        originHost = new URL(origin).host;
      } catch {
        originHost = null;
      }
      if (originHost !== host) {
        return respondWithError(
          context,
          new HttpError(
            'FORBIDDEN_ORIGIN',
            `Writes from origin "${origin}" are refused; only this server's own pages may write.`,
          ),
        );
      }
    } else if (origin === 'null') {
      return respondWithError(context, new HttpError('FORBIDDEN_ORIGIN', 'Writes from an opaque origin are refused.'));
    }
    const contentType = context.req.header('content-type');
    const hasBody = context.req.raw.body !== null && context.req.header('content-length') !== '0';
    if (hasBody && contentType !== undefined && !/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType)) {
      return respondWithError(
        context,
        new HttpError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Request bodies are JSON: send \`Content-Type: application/json\` (got "${contentType}").`,
        ),
      );
    }
    return next();
  };
}
