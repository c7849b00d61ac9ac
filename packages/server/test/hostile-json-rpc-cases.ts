// The lines and bodies an MCP server must answer with an error rather than drop: messages that
// are not JSON-RPC (or not MCP's), and text that is not JSON. Shared by the stdio and HTTP tests.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const MEBIBYTE = 1024 * 1024;

export interface BadMessage {
  name: string;
  /** The message's bytes (a line without its newline); a number is a ping padded to that many MiB. */
  line: string | Buffer | number;
  code: number;
  id?: string | number | null;
}

export const WRONG_MESSAGES: BadMessage[] = [
  { name: '10 MB request', line: 10, code: INVALID_REQUEST },
  { name: '60 MB request', line: 60, code: INVALID_REQUEST },
  { name: 'object id', line: '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', code: INVALID_REQUEST },
  { name: 'array id', line: '{"jsonrpc":"2.0","id":[1],"method":"ping"}', code: INVALID_REQUEST },
  { name: 'null id', line: '{"jsonrpc":"2.0","id":null,"method":"ping"}', code: INVALID_REQUEST },
  { name: 'boolean id', line: '{"jsonrpc":"2.0","id":true,"method":"ping"}', code: INVALID_REQUEST },
  { name: 'fractional id', line: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', code: INVALID_REQUEST, id: 1.5 },
  { name: 'no jsonrpc', line: '{"id":7,"method":"ping"}', code: INVALID_REQUEST, id: 7 },
  { name: 'jsonrpc 1.0', line: '{"jsonrpc":"1.0","id":"v1","method":"ping"}', code: INVALID_REQUEST, id: 'v1' },
  { name: 'string params', line: '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"x"}', code: INVALID_REQUEST, id: 8 },
  { name: 'null params', line: '{"jsonrpc":"2.0","id":81,"method":"tools/list","params":null}', code: INVALID_REQUEST, id: 81 },
  { name: 'array params', line: '{"jsonrpc":"2.0","id":82,"method":"tools/list","params":[1]}', code: INVALID_PARAMS, id: 82 },
  { name: 'numeric method', line: '{"jsonrpc":"2.0","id":10,"method":1}', code: INVALID_REQUEST, id: 10 },
  { name: 'no method, no result', line: '{"jsonrpc":"2.0","id":11}', code: INVALID_REQUEST, id: 11 },
  { name: 'unknown member', line: '{"jsonrpc":"2.0","id":12,"method":"ping","extra":1}', code: INVALID_REQUEST, id: 12 },
  {
    name: 'bad notification',
    line: '{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}',
    code: INVALID_REQUEST,
  },
  {
    name: 'batch',
    line: '[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":19,"method":"ping"}]',
    code: INVALID_REQUEST,
  },
  { name: 'empty batch', line: '[]', code: INVALID_REQUEST },
  { name: 'number', line: '42', code: INVALID_REQUEST },
  { name: 'string', line: '"ping"', code: INVALID_REQUEST },
  { name: 'null', line: 'null', code: INVALID_REQUEST },
];

export const MALFORMED_JSON: BadMessage[] = [
  { name: 'open brace', line: '{', code: PARSE_ERROR },
  { name: 'close brace', line: '}', code: PARSE_ERROR },
  { name: 'truncated', line: '{"jsonrpc":"2.0","id":1,"method":"ping"', code: PARSE_ERROR },
  { name: 'extra brace', line: '{"jsonrpc":"2.0","id":1,"method":"ping"}}', code: PARSE_ERROR },
  { name: 'two values', line: '{"jsonrpc":"2.0","id":1,"method":"ping"}{"a":1}', code: PARSE_ERROR },
  { name: 'single quotes', line: "{'jsonrpc':'2.0','id':1,'method':'ping'}", code: PARSE_ERROR },
  { name: 'unquoted keys', line: '{jsonrpc:"2.0",id:1,method:"ping"}', code: PARSE_ERROR },
  { name: 'trailing comma', line: '{"jsonrpc":"2.0","id":1,"method":"ping",}', code: PARSE_ERROR },
  { name: 'unterminated string', line: '{"jsonrpc":"2.0","method":"ping', code: PARSE_ERROR },
  { name: 'bad escape', line: '{"jsonrpc":"2.0","id":1,"method":"p\\qing"}', code: PARSE_ERROR },
  { name: 'raw control character', line: '{"jsonrpc":"2.0","id":1,"method":"pi\u0001ng"}', code: PARSE_ERROR },
  { name: 'NaN', line: 'NaN', code: PARSE_ERROR },
  { name: 'prose', line: 'hello, server', code: PARSE_ERROR },
  { name: 'not UTF-8', line: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), code: PARSE_ERROR },
  { name: 'deep nesting', line: '['.repeat(200_000), code: PARSE_ERROR },
  { name: 'empty line', line: '', code: PARSE_ERROR },
];

/** A ping request of at least `mebibytes` MiB, in 1 MiB pieces, so no test holds it whole. */
export function* bigPing(id: string, mebibytes: number): Generator<string> {
  yield `{"jsonrpc":"2.0","id":"${id}","method":"ping","params":{"_meta":{"pad":"`;
  const pad = 'x'.repeat(MEBIBYTE);
  for (let piece = 0; piece < mebibytes; piece += 1) yield pad;
  yield '"}}}';
}
