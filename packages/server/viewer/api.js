// The viewer's only way to the server: JSON calls under /v1, the NDJSON history read a line at a
// time (so a page reads only what it shows), and the session stream. The bearer token comes from
// `#token=…` in the page's address and is sent to /v1 only, never put in a query string or log.

let token = null;

export function setToken(value) {
  token = value || null;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function requestInit(signal) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return { headers, signal };
}

function apiUrl(path, query = {}) {
  if (!path.startsWith('/v1/')) throw new Error(`not an API path: ${path}`);
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  return url;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: the status line is all we have.
  }
  const code = body?.error?.code ?? `http_${response.status}`;
  const message = body?.error?.message ?? `${response.status} ${response.statusText}`;
  return new ApiError(response.status, code, message);
}

export async function getJson(path, query, signal) {
  const response = await fetch(apiUrl(path, query), requestInit(signal));
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Segments of an id for a path: ids are the ledger's own, but a crafted one must not escape. */
export function segment(id) {
  return encodeURIComponent(String(id));
}

/**
 * Reads an NDJSON response one line at a time and stops after `limit` items, cancelling the rest
 * of the stream: the server streams the history and stops producing when the reader goes.
 */
export async function readNdjson(path, { query, limit = Number.POSITIVE_INFINITY, signal } = {}) {
  const response = await fetch(apiUrl(path, query), requestInit(signal));
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const items = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) items.push(JSON.parse(line));
        if (items.length >= limit) return items;
        newline = buffer.indexOf('\n');
      }
      if (done) break;
    }
    if (buffer.trim()) items.push(JSON.parse(buffer));
    return items;
  } finally {
    reader.cancel().catch(() => {});
  }
}

export function getTurn(turnId, signal) {
  return getJson(`/v1/turns/${segment(turnId)}`, undefined, signal);
}

/**
 * Up to `count` turns of the chain ending at `turnId`, newest first, by following parent links:
 * the cost is the page, never the history. Stops early at `stopAtId` (not included) or the root.
 */
export async function walkBack(turnId, { count, stopAtId = null, signal } = {}) {
  const turns = [];
  let next = turnId;
  while (next && next !== stopAtId && turns.length < count) {
    const turn = await getTurn(next, signal);
    turns.push(turn);
    next = turn.parentTurnId;
  }
  return turns;
}

/**
 * Subscribes to a session's server-sent events. EventSource cannot send an Authorization header,
 * so the stream is read with fetch; it reconnects after a drop until `close()` is called.
 */
export function subscribe(sessionId, onEvent) {
  const controller = new AbortController();
  let closed = false;
  const run = async () => {
    while (!closed) {
      try {
        const init = requestInit(controller.signal);
        init.headers.accept = 'text/event-stream';
        const response = await fetch(apiUrl(`/v1/sessions/${segment(sessionId)}/stream`), init);
        if (!response.ok) throw await failure(response);
        await readEvents(response.body, onEvent);
      } catch (error) {
        if (closed) return;
        // A refused request (no token, unknown session) will not succeed by asking again.
        const refused = error instanceof ApiError && error.status >= 400 && error.status < 500;
        onEvent({ type: 'error', data: { message: error.message, final: refused } });
        if (refused) return;
      }
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  run();
  return {
    close() {
      closed = true;
      controller.abort();
    },
  };
}

async function readEvents(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const message = parseEvent(block);
      if (message) onEvent(message);
      boundary = buffer.indexOf('\n\n');
    }
  }
}

function parseEvent(block) {
  let type = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  try {
    return { type, data: JSON.parse(text) };
  } catch {
    return { type, data: text };
  }
}

/** The list in a response: the API wraps lists in an object (`{ sessions: [...] }`, …). */
export function itemsOf(body, key) {
  if (Array.isArray(body)) return body;
  return Array.isArray(body?.[key]) ? body[key] : [];
}
