// A real HTTP server on 127.0.0.1 that answers the two Messages API routes the project uses
// (`POST /v1/messages`, `POST /v1/messages/count_tokens`) the way the Anthropic API does, so the
// real SDK can be exercised end to end with no network and no key. Replies come from a queue of
// one-shot replies (faults, scripted answers, or one reply kept for the Nth request) and then from a
// responder function; a prompt larger than the configured context window gets the API's own
// "prompt is too long" error.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiContentBlock, MessagesRequestBody } from './api-types.ts';
import { messagesProblems } from './messages-validation.ts';
import { estimateApiTokens, lastUserText, requestText } from './request-text.ts';

export type {
  ApiContentBlock,
  ApiMessage,
  ApiTextBlock,
  ApiToolResultBlock,
  ApiToolUseBlock,
  MessagesRequestBody,
} from './api-types.ts';

export type Route = 'messages' | 'count_tokens';

export interface RecordedRequest {
  route: Route;
  body: MessagesRequestBody;
  headers: IncomingMessage['headers'];
  /** Estimated input tokens, as the server counts them (characters / 4). */
  inputTokens: number;
  receivedAt: number;
}

/** What the server does with one request. `delayMs` waits before answering (a slow model). */
export type LoopbackReply = { delayMs?: number } & (
  | { kind: 'text'; text: string; stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'refusal' }
  | { kind: 'content'; content: ApiContentBlock[]; stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' }
  | { kind: 'error'; status: number; errorType: string; message: string; headers?: Record<string, string> }
  /** Accept the request and never answer: the client's timeout has to end it. */
  | { kind: 'hang' }
  /**
   * Send a 200 and its headers (and `partialBody`, if given), then nothing: a stream gone quiet after
   * it started. A timeout that stops at the headers never ends it.
   */
  | { kind: 'stall'; partialBody?: string }
  /** Any body at all, e.g. malformed JSON with a 200. */
  | { kind: 'raw'; status: number; body: string; contentType?: string }
);

export type Responder = (request: RecordedRequest) => LoopbackReply | Promise<LoopbackReply>;

export interface LoopbackOptions {
  /** Answers every request the queue does not; `echoResponder` by default. */
  respond?: Responder;
  /** Prompts over this many (estimated) tokens get a 400 "prompt is too long", as the API does. */
  contextWindow?: number;
  /**
   * Counts this many times the characters / 4 estimate (default 1): a tokenizer that counts far
   * more than a client's estimate, or a proxy in front of a smaller model.
   */
  tokenMultiplier?: number;
  /**
   * Refuse, as the API does, messages that break its shape rules (roles alternate, every tool_use
   * answered by a tool_result right after it, …: messages-validation.ts). Default true.
   */
  strictMessages?: boolean;
}

export interface LoopbackApi {
  /** Base URL for the SDK's `baseURL` / `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** One-shot replies, used in order before the responder; `route` defaults to `messages`. */
  enqueue(...replies: Array<LoopbackReply & { route?: Route }>): void;
  /**
   * The reply to the `requestNumber`th request on `/v1/messages` (1 for the first received, refused
   * ones included), once, ahead of the queue: a fault at a known point of a long conversation.
   */
  replyAt(requestNumber: number, reply: LoopbackReply): void;
  setResponder(respond: Responder): void;
  setContextWindow(tokens: number | undefined): void;
  /** Requests on `/v1/messages` whose answer has not been sent yet (slow or hung). */
  readonly pending: number;
  close(): Promise<void>;
}

/** A 400 worded as the API words an overflow, with the figures given (a misreport, say). */
export function promptTooLong(promptTokens: number, limitTokens: number): LoopbackReply {
  return {
    kind: 'error',
    status: 400,
    errorType: 'invalid_request_error',
    message: `prompt is too long: ${promptTokens} tokens > ${limitTokens} maximum`,
  };
}

/** Default responder: a short, labelled echo of the last user message. */
export const echoResponder: Responder = (request) => ({
  kind: 'text',
  text: `(loopback) You said: ${lastUserText(request.body).slice(0, 200)}`,
});

/** What the running server keeps between requests; the LoopbackApi handle changes some of it. */
interface ServerState {
  readonly options: LoopbackOptions;
  respond: Responder;
  contextWindow: number | undefined;
  readonly queue: Array<LoopbackReply & { route?: Route }>;
  /** Replies kept for the Nth request on `/v1/messages` (replyAt). */
  readonly scheduled: Map<number, LoopbackReply>;
  /** Requests received on `/v1/messages`, refused ones included. */
  messagesReceived: number;
  readonly requests: RecordedRequest[];
  /** Requests on `/v1/messages` whose answer has not been sent yet. */
  pending: number;
  /** Numbers the message ids. */
  counter: number;
}

export async function startLoopbackApi(options: LoopbackOptions = {}): Promise<LoopbackApi> {
  const state: ServerState = {
    options,
    respond: options.respond ?? echoResponder,
    contextWindow: options.contextWindow,
    queue: [],
    scheduled: new Map(),
    messagesReceived: 0,
    requests: [],
    pending: 0,
    counter: 0,
  };

  const server: Server = createServer((incoming, outgoing) => {
    void handle(state, incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) sendJson(outgoing, 500, apiError('api_error', `loopback server failed: ${String(error)}`));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    enqueue: (...replies) => state.queue.push(...replies),
    replyAt: (requestNumber, reply) => {
      state.scheduled.set(requestNumber, reply);
    },
    setResponder: (next) => {
      state.respond = next;
    },
    setContextWindow: (tokens) => {
      state.contextWindow = tokens;
    },
    get pending() {
      return state.pending;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(state: ServerState, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const request = await acceptRequest(state, incoming, outgoing);
  if (!request) return;
  const { route, inputTokens } = request;
  const { contextWindow } = state;
  const scripted = scriptedReply(state, route);
  // Only a generation is refused for length; count_tokens counts whatever it is given.
  if (!scripted && route === 'messages' && contextWindow !== undefined && inputTokens > contextWindow) {
    sendJson(
      outgoing,
      400,
      apiError('invalid_request_error', `prompt is too long: ${inputTokens} tokens > ${contextWindow} maximum`),
    );
    return;
  }
  if (!scripted && route === 'count_tokens') {
    sendJson(outgoing, 200, { input_tokens: inputTokens });
    return;
  }
  await answer(state, { request, scripted, incoming, outgoing });
}

/** The reply kept for this request's number, else the first queued for its route, else none. */
function scriptedReply(state: ServerState, route: Route): LoopbackReply | undefined {
  if (route === 'messages') {
    const kept = state.scheduled.get(state.messagesReceived);
    if (kept) {
      state.scheduled.delete(state.messagesReceived);
      return kept;
    }
  }
  const queued = state.queue.findIndex((reply) => (reply.route ?? 'messages') === route);
  return queued >= 0 ? state.queue.splice(queued, 1)[0] : undefined;
}

/**
 * Reads, parses and records one request; null when it was refused (unknown route, a body that is
 * not JSON or has no messages, or messages the API would refuse), the error already sent.
 */
async function acceptRequest(
  state: ServerState,
  incoming: IncomingMessage,
  outgoing: ServerResponse,
): Promise<RecordedRequest | null> {
  const route = routeOf(incoming);
  if (!route) {
    sendJson(outgoing, 404, apiError('not_found_error', `No route ${incoming.method} ${incoming.url} on the loopback server.`));
    return null;
  }
  const raw = await readBody(incoming);
  if (route === 'messages') state.messagesReceived += 1;
  let body: MessagesRequestBody;
  try {
    body = JSON.parse(raw) as MessagesRequestBody;
  } catch {
    sendJson(outgoing, 400, apiError('invalid_request_error', 'The request body is not valid JSON.'));
    return null;
  }
  if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) {
    sendJson(outgoing, 400, apiError('invalid_request_error', 'messages: Field required'));
    return null;
  }
  const { options } = state;
  const inputTokens = Math.ceil(estimateApiTokens(requestText(body)) * (options.tokenMultiplier ?? 1));
  const request: RecordedRequest = { route, body, headers: incoming.headers, inputTokens, receivedAt: Date.now() };
  state.requests.push(request);
  const problems = options.strictMessages === false ? [] : messagesProblems(body.messages);
  if (problems.length > 0) {
    sendJson(outgoing, 400, apiError('invalid_request_error', problems[0] as string));
    return null;
  }
  return request;
}

/** One accepted request and the reply scripted for it, if the queue held one. */
interface Exchange {
  request: RecordedRequest;
  scripted: LoopbackReply | undefined;
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** Sends the scripted reply or the responder's, counting a generation as pending until it is answered. */
async function answer(state: ServerState, { request, scripted, incoming, outgoing }: Exchange): Promise<void> {
  const counted = request.route === 'messages' ? 1 : 0;
  state.pending += counted;
  let reply: LoopbackReply | undefined;
  try {
    reply = scripted ?? (await state.respond(request));
    if (reply.delayMs) await waitOrClose(reply.delayMs, incoming);
    // The request stream itself is destroyed once read; a client that gave up closes the socket.
    if (outgoing.destroyed || incoming.socket.destroyed) return;
    sendReply(outgoing, reply, request, () => `msg_loopback_${++state.counter}`);
  } finally {
    // A hung or stalled request stays pending until its connection closes.
    if ((reply?.kind === 'hang' || reply?.kind === 'stall') && !incoming.socket.destroyed)
      incoming.socket.once('close', () => (state.pending -= counted));
    else state.pending -= counted;
  }
}

function routeOf(incoming: IncomingMessage): Route | null {
  if (incoming.method !== 'POST') return null;
  const path = (incoming.url ?? '').split('?')[0];
  if (path === '/v1/messages') return 'messages';
  if (path === '/v1/messages/count_tokens') return 'count_tokens';
  return null;
}

function sendReply(outgoing: ServerResponse, reply: LoopbackReply, request: RecordedRequest, nextId: () => string): void {
  switch (reply.kind) {
    case 'hang':
      return; // the socket stays open until the client gives up or the server closes
    case 'stall':
      outgoing.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_loopback_${Date.now()}` });
      // Headers go now, not with the first body bytes: the client has its response, then silence.
      outgoing.flushHeaders();
      if (reply.partialBody) outgoing.write(reply.partialBody);
      return;
    case 'raw':
      outgoing.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' });
      outgoing.end(reply.body);
      return;
    case 'error':
      sendJson(outgoing, reply.status, apiError(reply.errorType, reply.message), reply.headers);
      return;
    case 'text':
    case 'content': {
      if (request.route === 'count_tokens') {
        sendJson(outgoing, 200, { input_tokens: request.inputTokens });
        return;
      }
      const content: ApiContentBlock[] = reply.kind === 'text' ? [{ type: 'text', text: reply.text }] : reply.content;
      const outputText = content.map((block) => (block.type === 'text' ? block.text : JSON.stringify(block))).join('\n');
      sendJson(outgoing, 200, {
        id: nextId(),
        type: 'message',
        role: 'assistant',
        model: request.body.model,
        content,
        stop_reason: reply.stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        usage: { input_tokens: request.inputTokens, output_tokens: estimateApiTokens(outputText) },
      });
      return;
    }
  }
}

function apiError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  outgoing.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_loopback_${Date.now()}`, ...headers });
  outgoing.end(JSON.stringify(body));
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

/** Waits, but stops early when the client hangs up (a timed-out SDK request). */
function waitOrClose(ms: number, incoming: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      incoming.socket.off('close', onClose);
      resolve();
    }, ms);
    incoming.socket.once('close', onClose);
  });
}
