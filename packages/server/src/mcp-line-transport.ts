// The stdio transport of `nexus mcp`: newline-delimited JSON-RPC on a pair of streams, for the SDK's
// McpServer. It replaces the SDK's StdioServerTransport, whose reader drops a line that is not JSON
// or not a message without answering, and closes itself on a line over 10 MB. Here a line over the
// limit is discarded as it streams in and answered with an error, every line that is not a message
// gets one error answer (incoming-json-rpc.ts), and the server keeps reading. The protocol's work
// (requests, tools, answers) stays with the SDK.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedLineSplitter, type LinePiece } from './bounded-lines.ts';
import { INVALID_REQUEST, type JsonRpcErrorAnswer, jsonRpcError, PARSE_ERROR, readJsonRpcText } from './incoming-json-rpc.ts';

export interface McpLineTransportOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** The longest line read, in bytes (without its newline). */
  maxMessageBytes: number;
}

type RequestId = string | number;

export class McpLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Resolves once the input ended and every request read was answered, or the transport closed. */
  readonly finished: Promise<void>;

  private readonly splitter: BoundedLineSplitter;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** Requests read and not yet answered, by id (a count: a client may reuse an id). */
  private readonly unanswered = new Map<RequestId, number>();
  private inputEnded = false;
  private closed = false;
  /** Set while the output's buffer is full; resolves when it drains. */
  private draining: Promise<void> | null = null;
  private finish: () => void = () => undefined;

  constructor(private readonly options: McpLineTransportOptions) {
    this.splitter = new BoundedLineSplitter(options.maxMessageBytes, (piece) => this.receive(piece));
    this.finished = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  async start(): Promise<void> {
    const { input, output } = this.options;
    input.on('data', this.onData);
    input.once('end', this.onEnd);
    input.once('close', this.onEnd);
    input.on('error', this.onStreamError);
    // A client that stops reading (EPIPE) ends the session; unhandled, it would end the process.
    output.on('error', this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Written (handed to the stream) before it counts as answered: the end of input may close next.
    const written = this.write(message);
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      this.answered(message.id);
    }
    await written;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { input, output } = this.options;
    input.off('data', this.onData);
    input.off('end', this.onEnd);
    input.off('close', this.onEnd);
    input.off('error', this.onStreamError);
    output.off('error', this.onStreamError);
    // A flowing stdin keeps the process alive; paused with no reader left, it lets it exit (SIGTERM).
    if (input.listenerCount('data') === 0) input.pause();
    this.finish();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    if (this.inputEnded) return;
    this.splitter.end();
    this.inputEnded = true;
    this.finishWhenAnswered();
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private receive(piece: LinePiece): void {
    if (piece.kind === 'oversized') {
      this.answerError(
        jsonRpcError(
          null,
          INVALID_REQUEST,
          `Invalid Request: a message of ${piece.bytes} bytes is over the limit of ${this.options.maxMessageBytes} bytes; it was not read.`,
        ),
      );
      return;
    }
    let text: string;
    try {
      text = this.decoder.decode(piece.bytes);
    } catch {
      this.answerError(jsonRpcError(null, PARSE_ERROR, 'Parse error: the line is not UTF-8 text.'));
      return;
    }
    const incoming = readJsonRpcText(text);
    if (!incoming.ok) {
      this.answerError(incoming.answer);
      return;
    }
    this.track(incoming.message);
    this.onmessage?.(incoming.message);
  }

  /** Counts a request until its answer is sent, so the end of input waits for it. */
  private track(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) {
      this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      // A cancelled request gets no answer (MCP): stop waiting for one.
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.answered(requestId);
    }
  }

  private answered(id: RequestId): void {
    const count = this.unanswered.get(id);
    if (count === undefined) return;
    if (count <= 1) this.unanswered.delete(id);
    else this.unanswered.set(id, count - 1);
    this.finishWhenAnswered();
  }

  private finishWhenAnswered(): void {
    if (this.inputEnded && this.unanswered.size === 0) this.finish();
  }

  private answerError(answer: JsonRpcErrorAnswer): void {
    this.onerror?.(new Error(answer.error.message));
    void this.write(answer);
  }

  private write(message: JSONRPCMessage | JsonRpcErrorAnswer): Promise<void> {
    if (this.closed) return Promise.resolve();
    const { input, output } = this.options;
    if (!output.write(`${JSON.stringify(message)}\n`) && !this.draining) {
      // The client is not reading the answers: stop reading its lines until it does, so a flood
      // of bad lines cannot pile up error answers in memory.
      input.pause();
      this.draining = new Promise((resolve) => {
        output.once('drain', () => {
          this.draining = null;
          input.resume();
          resolve();
        });
      });
    }
    return this.draining ?? Promise.resolve();
  }
}
