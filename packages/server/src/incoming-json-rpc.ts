// What a line (stdio) or a body (HTTP /mcp) holds, checked as JSON-RPC 2.0 before the SDK sees it.
// The SDK drops what its schema refuses without a word, and a client then waits forever for the
// answer to a request it sent. Here anything that is not a message gets exactly one error answer:
// -32700 for text that is not JSON, -32600 for JSON that is not a request, notification or response
// (with the request's id when one can be read, else null). Pure: no I/O.

import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export type JsonRpcId = string | number | null;

/** An error response written by us, not the SDK: its id may be null, which the SDK's types do not allow. */
export interface JsonRpcErrorAnswer {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string };
}

export type IncomingJsonRpc = { ok: true; message: JSONRPCMessage } | { ok: false; answer: JsonRpcErrorAnswer };

export function jsonRpcError(id: JsonRpcId, code: number, message: string): JsonRpcErrorAnswer {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** One message's text: JSON.parse, then `checkJsonRpcValue`. */
export function readJsonRpcText(text: string): IncomingJsonRpc {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // A RangeError (nesting too deep for the stack) is as much "not JSON we can read" as a SyntaxError.
    const reason = error instanceof Error ? error.message : String(error);
    return refused(null, PARSE_ERROR, `Parse error: the message is not JSON (${reason.slice(0, 200)}).`);
  }
  return checkJsonRpcValue(value);
}

/** A parsed value as one JSON-RPC 2.0 message the SDK accepts, or the error to answer it with. */
export function checkJsonRpcValue(value: unknown): IncomingJsonRpc {
  if (Array.isArray(value)) {
    return refused(
      null,
      INVALID_REQUEST,
      'Invalid Request: batches (JSON arrays) are not supported; send one message at a time (MCP removed batching in protocol 2025-06-18).',
    );
  }
  if (typeof value !== 'object' || value === null) {
    return refused(null, INVALID_REQUEST, 'Invalid Request: a JSON-RPC message is a JSON object.');
  }
  const record = value as Record<string, unknown>;
  const shapeProblem = idProblem(record) ?? envelopeProblem(record);
  if (shapeProblem) return { ok: false, answer: shapeProblem };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  return refused(answerableId(record), INVALID_REQUEST, `Invalid Request: not an MCP message${where} (${issue?.message}).`);
}

/** JSON-RPC ids are strings or numbers; MCP's are strings or integers, never null. */
function idProblem(record: Record<string, unknown>): JsonRpcErrorAnswer | undefined {
  if (!('id' in record)) return undefined;
  const id = record.id;
  if (typeof id === 'string') return undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return undefined;
  // A fractional id can still be echoed so the client can match the answer to its request.
  const echoed = typeof id === 'number' && Number.isFinite(id) ? id : null;
  return jsonRpcError(echoed, INVALID_REQUEST, `Invalid Request: "id" must be a string or an integer, got ${describe(id)}.`);
}

function envelopeProblem(record: Record<string, unknown>): JsonRpcErrorAnswer | undefined {
  const id = answerableId(record);
  if (record.jsonrpc !== '2.0') {
    return jsonRpcError(id, INVALID_REQUEST, `Invalid Request: "jsonrpc" must be "2.0", got ${describe(record.jsonrpc)}.`);
  }
  if ('method' in record) {
    if (typeof record.method !== 'string') {
      return jsonRpcError(id, INVALID_REQUEST, `Invalid Request: "method" must be a string, got ${describe(record.method)}.`);
    }
    if (!('params' in record)) return undefined;
    const params = record.params;
    // Positional params are JSON-RPC but not MCP: the call is well formed, its params are not.
    if (Array.isArray(params)) return jsonRpcError(id, INVALID_PARAMS, 'Invalid params: MCP params are an object, not an array.');
    if (typeof params !== 'object' || params === null) {
      return jsonRpcError(id, INVALID_REQUEST, `Invalid Request: "params" must be an object, got ${describe(params)}.`);
    }
    return undefined;
  }
  if ('result' in record || 'error' in record) return undefined;
  return jsonRpcError(
    id,
    INVALID_REQUEST,
    'Invalid Request: a message has a "method" (a request or notification) or a "result" or "error" (a response).',
  );
}

/** The id to answer with: the message's own when it is one a client could have sent, else null. */
function answerableId(record: Record<string, unknown>): JsonRpcId {
  const id = record.id;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  return null;
}

function refused(id: JsonRpcId, code: number, message: string): IncomingJsonRpc {
  return { ok: false, answer: jsonRpcError(id, code, message) };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}
