// Serves the web viewer's static files: `/` is index.html and `/viewer/<file>` a plain file of the
// viewer folder. Names are checked against a strict pattern before the disk is touched, so no
// path (`..`, `%2e%2e`, `a/b`, a symlink out of the folder) can reach anything else.

import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_VIEWER_DIRECTORY = fileURLToPath(new URL('../viewer/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
};

/**
 * The page may load and call only this server: no external script, style, image or connection,
 * even if a stored turn carried markup that reached the DOM. Inline style attributes stay allowed
 * (the viewer sets CSS variables with them); inline scripts do not.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$/;

/** The file as a response, or null when the name is not a plain file of the folder with a known type. */
export async function viewerFile(directory: string, name: string): Promise<Response | null> {
  if (!SAFE_NAME.test(name)) return null;
  const contentType = CONTENT_TYPES[path.extname(name).toLowerCase()];
  if (!contentType) return null;
  const file = path.join(directory, name);
  try {
    // lstat: a symlink is not a plain file, so a link planted in the folder cannot point outside it.
    if (!(await lstat(file)).isFile()) return null;
    const body = await readFile(file);
    return new Response(body, {
      headers: {
        'content-type': contentType,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        ...(contentType.startsWith('text/html') ? { 'content-security-policy': CONTENT_SECURITY_POLICY } : {}),
      },
    });
  } catch {
    return null;
  }
}
