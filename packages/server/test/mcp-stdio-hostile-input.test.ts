// `nexus mcp` keeps answering whatever a client sends. The built binary as a process, raw bytes on
// its stdin: lines of 10 MB and 60 MB, ids the SDK refuses, envelopes that are not JSON-RPC,
// batches and broken JSON. Each bad line gets exactly one error answer with the JSON-RPC code it
// deserves, a ping after it is still answered, and a last request with no newline before EOF is
// answered before the process exits. (The SDK's own transport closed on the 10 MB line and dropped
// the rest without a word.)

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BadMessage, bigPing, MALFORMED_JSON, WRONG_MESSAGES } from './hostile-json-rpc-cases.ts';
import { type JsonRpcAnswer, McpChildProcess } from './mcp-child-process.ts';
import { type Fixture, openFixture } from './server-fixture.ts';

let fixture: Fixture;
let server: McpChildProcess;
beforeEach(() => {
  fixture = openFixture();
});
afterEach(async () => {
  server?.kill();
  await fixture.cleanup();
});

/** Writes one line (a big one in 1 MiB pieces), then a ping; returns what was answered in between. */
async function answersTo(bad: BadMessage, index: number): Promise<JsonRpcAnswer[]> {
  const before = server.answers.length;
  if (typeof bad.line === 'number') {
    for (const piece of bigPing(`big-${index}`, bad.line)) await server.write(piece);
    await server.write('\n');
  } else {
    await server.write(Buffer.concat([Buffer.from(bad.line), Buffer.from('\n')]));
  }
  const marker = `after-${index}`;
  await server.send({ jsonrpc: '2.0', id: marker, method: 'ping' });
  await server.answerTo(marker);
  const between = server.answers.slice(before);
  return between.filter((answer) => answer.id !== marker);
}

describe('nexus mcp on hostile input', () => {
  it('answers every bad line once, with the right code, and keeps serving', async () => {
    const session = await fixture.ledger.createSession({ label: 'hostile' });
    server = new McpChildProcess(fixture.dbPath);
    await server.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '0' } },
    });
    expect((await server.answerTo('init')).result).toMatchObject({ serverInfo: { name: 'nexus' } });
    await server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const cases = [...WRONG_MESSAGES, ...MALFORMED_JSON];
    const wrong: string[] = [];
    for (const [index, bad] of cases.entries()) {
      const answers = await answersTo(bad, index);
      const got = answers.map((answer) => ({ code: answer.error?.code, id: answer.id }));
      const expected = [{ code: bad.code, id: bad.id ?? null }];
      if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${bad.name}: ${JSON.stringify(got)}`);
    }
    expect(wrong).toEqual([]);

    // 1.0 is the number 1 in JSON: a valid id, answered as 1.
    await server.write('{"jsonrpc":"2.0","id":1.0,"method":"ping"}\n');
    expect(await server.answerTo(1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    // A real call still works after all that.
    await server.send({ jsonrpc: '2.0', id: 'tools', method: 'tools/call', params: { name: 'list_sessions', arguments: {} } });
    expect((await server.answerTo('tools')).result).toMatchObject({ structuredContent: { sessions: [{ id: session.id }] } });

    // The last request has no newline: it is still a line, answered before the server exits.
    await server.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
    const exitCode = await server.endInput();
    expect(server.answers.find((answer) => answer.id === 'last')).toEqual({ jsonrpc: '2.0', id: 'last', result: {} });
    expect(exitCode).toBe(0);
    expect(server.strayLines).toEqual([]);
    expect(server.stderr).toMatch(/nexus mcp: serving/);
  }, 120_000);

  it('ends on SIGTERM while the client keeps stdin open', async () => {
    await fixture.ledger.createSession({ label: 'sigterm' });
    server = new McpChildProcess(fixture.dbPath);
    await server.send({ jsonrpc: '2.0', id: 'before', method: 'ping' });
    await server.answerTo('before');
    // The transport pauses stdin as it closes: left flowing, stdin kept the process alive after the server closed.
    expect(await server.terminate()).toBe(0);
  }, 60_000);
});
