// runTurn end to end: both ledgers on one SQLite file, the real Anthropic SDK against the loopback
// Messages API. What is appended (user turn, tool rounds, reply), what the model is sent, inbound
// channel messages (recorded as events, cited, redelivery recognised), bad input, model failures
// (the user turn stays, respond() answers it later) and the offline model.

import { recallToolDefinition } from '@agent-ledger/agents-ledger';
import { type ContentBlock, InvalidInputError, ModelError, type NormalTurn, SessionNotFoundError } from '@agent-ledger/core';
import type { LoopbackApi, RecordedRequest } from '@agent-ledger/loopback-api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatModel,
  type ChatRuntimeOptions,
  createChatRuntime,
  createOfflineChatModel,
  OFFLINE_MODEL_NAME,
  type RuntimeNotice,
  type RuntimeTool,
} from '../src/index.ts';
import {
  CHAT_MODEL,
  chatModel,
  countEventRows,
  countTurnRows,
  newSession,
  Resources,
  rejection,
  SERVER_ERROR,
  sessionHistory,
} from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const INBOUND = { channel: 'slack:C0123', externalId: 'msg-1001', author: 'ana', occurredAt: 1_699_999_000_000 };

/** Ledgers on one file, a loopback server (fixed reply unless told), and a runtime on the real SDK. */
async function setup(
  options: { reply?: string; model?: ChatModel; withEvents?: boolean } & Partial<
    Omit<ChatRuntimeOptions, 'ledger' | 'model' | 'events'>
  > = {},
) {
  const { reply = 'Noted.', model, withEvents = true, ...runtimeOptions } = options;
  const api = await resources.server({ respond: () => ({ kind: 'text', text: reply }) });
  const { ledger, events } = resources.ledgers();
  const notices: RuntimeNotice[] = [];
  const runtime = resources.runtime(
    createChatRuntime({
      ledger,
      ...(withEvents ? { events } : {}),
      model: model ?? chatModel(api),
      onNotice: (notice) => notices.push(notice),
      ...runtimeOptions,
    }),
  );
  const session = await newSession(ledger);
  return { api, ledger, events, runtime, session, notices };
}

function requestAt(api: LoopbackApi, index: number): RecordedRequest {
  const request = api.requests.at(index);
  if (!request) throw new Error(`no request at ${index} (of ${api.requests.length})`);
  return request;
}

function text(value: string): ContentBlock[] {
  return [{ type: 'text', text: value }];
}

function toolNames(request: RecordedRequest): string[] | undefined {
  return request.body.tools?.map((tool) => tool.name);
}

function contentOf(turn: NormalTurn | undefined): ContentBlock[] {
  if (!turn) throw new Error('missing turn');
  return turn.content;
}

describe('a turn', () => {
  it('appends the user turn and the reply (content, model, stop reason, usage) and returns text, turns and context', async () => {
    const { api, ledger, runtime, session } = await setup({ reply: 'The cache listens on 6379.' });
    const result = await runtime.runTurn(session.id, 'Which port does the cache listen on?');

    expect(result.text).toBe('The cache listens on 6379.');
    expect(result.turns).toHaveLength(2);
    const [user, reply] = result.turns;
    expect(user).toMatchObject({ role: 'user', content: text('Which port does the cache listen on?'), eventIds: [] });
    expect(result.userTurn).toEqual(user);
    const request = requestAt(api, 0);
    expect(reply).toMatchObject({
      role: 'assistant',
      parentTurnId: user?.id,
      content: text('The cache listens on 6379.'),
      model: CHAT_MODEL,
      metadata: {
        stopReason: 'end_turn',
        usage: { inputTokens: request.inputTokens, outputTokens: Math.ceil('The cache listens on 6379.'.length / 4) },
      },
    });
    expect(result.reply).toEqual(reply);
    expect(result).toMatchObject({
      sessionId: session.id,
      duplicate: false,
      eventId: null,
      overflowCompaction: null,
      modelCalls: 1,
      usage: { inputTokens: request.inputTokens, outputTokens: 7 },
    });

    const toolTokens = ledger.tokenCounter.countText(JSON.stringify(runtime.tools));
    expect(result.context).toMatchObject({
      budgetTokens: session.settings.contextWindow - session.settings.reserveTokens - toolTokens,
      compactionTurnId: null,
      retrievedTurnIds: [],
      messages: 1,
    });
    expect(result.context.tokens).toBeGreaterThan(0);

    // As stored.
    const history = await sessionHistory(ledger, session.id);
    expect(history.map((turn) => turn.id)).toEqual([user?.id, reply?.id]);
    expect(history[1]).toEqual(reply);
    expect((await ledger.getSession(session.id)).headTurnId).toBe(reply?.id);
  });

  it("sends the ledger's system prompt and messages (the new message last) and the search_history tool", async () => {
    const systemPrompt = 'You are the ops assistant. Quote ids exactly.';
    const { api, ledger, runtime, session } = await setup({ systemPrompt });
    await runtime.runTurn(session.id, 'The invoice service runs on port 8443.');
    await runtime.runTurn(session.id, 'Its owner is the billing team.');
    const result = await runtime.runTurn(session.id, 'Who owns the invoice service and on which port does it run?');

    const body = requestAt(api, -1).body;
    const expected = await ledger.buildContext(result.userTurn.id, {
      budgetTokens: result.context.budgetTokens,
      query: 'Who owns the invoice service and on which port does it run?',
      retrieval: true,
      systemPrompt,
    });
    expect(body.system).toBe(expected.system);
    expect(String(body.system).startsWith(systemPrompt)).toBe(true);
    expect(body.messages).toEqual(expected.messages);
    expect(body.messages).toHaveLength(5);
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: text('Who owns the invoice service and on which port does it run?'),
    });
    expect(body.messages[0]).toEqual({ role: 'user', content: text('The invoice service runs on port 8443.') });
    expect(body.model).toBe(CHAT_MODEL);
    expect(body.tools).toEqual([recallToolDefinition]);
    expect(runtime.tools.map((tool) => tool.name)).toEqual(['search_history']);
  });

  it('offers no tools at all with recallTool: false', async () => {
    const { api, runtime, session } = await setup({ recallTool: false });
    await runtime.runTurn(session.id, 'Hello there.');
    expect(runtime.tools).toEqual([]);
    expect('tools' in requestAt(api, 0).body).toBe(false);
  });
});

describe('an inbound channel message', () => {
  it('is not a search result for the question it carries: the recall tool leaves out its event and turn', async () => {
    const { api, events, runtime, session } = await setup();
    await events.append({
      channel: 'slack:C0123',
      externalId: 'msg-0999',
      payload: { text: 'Staging deploy broke on the migration step' },
    });
    api.setResponder((request) =>
      request.body.messages.length === 1
        ? {
            kind: 'content',
            content: [{ type: 'tool_use', id: 'toolu_recall', name: 'search_history', input: { query: 'staging deploy' } }],
          }
        : { kind: 'text', text: 'Found it.' },
    );
    const result = await runtime.runTurn(session.id, 'Why did the staging deploy fail?', { inbound: INBOUND });
    const toolResult = result.turns[2]?.content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_recall' });
    const text = String((toolResult as { content?: unknown }).content);
    expect(text).toContain('migration step');
    expect(text).not.toContain(result.eventId as string);
    expect(text).not.toContain(result.userTurn.id);
  });

  it('is recorded as an event first, and the user turn cites it', async () => {
    const { api, ledger, events, runtime, session } = await setup();
    const result = await runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND });

    expect(result.eventId).not.toBeNull();
    const eventId = result.eventId as string;
    expect(await events.get(eventId)).toMatchObject({
      id: eventId,
      channel: INBOUND.channel,
      externalId: INBOUND.externalId,
      author: 'ana',
      kind: 'message',
      payload: { text: 'Deploy failed on staging' },
      occurredAt: INBOUND.occurredAt,
      seq: 1,
    });
    expect(result.userTurn.eventIds).toEqual([eventId]);
    const stored = await ledger.getTurn(result.userTurn.id);
    expect(stored.turnType === 'normal' && stored.eventIds).toEqual([eventId]);
    expect(await ledger.turnsCiting(eventId)).toEqual([result.userTurn.id]);
    expect(result.reply).not.toBeNull();
    expect(api.requests).toHaveLength(1);
  });

  it('redelivered (same channel and externalId) returns duplicate: true, appends nothing and calls no model', async () => {
    const { api, ledger, runtime, session } = await setup();
    const first = await runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND });
    const turnsBefore = await countTurnRows(ledger);
    const eventsBefore = await countEventRows(ledger);

    const again = await runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND });
    expect(again).toMatchObject({
      duplicate: true,
      reply: null,
      text: '',
      turns: [],
      eventId: first.eventId,
      modelCalls: 0,
      overflowCompaction: null,
    });
    expect(again.userTurn.id).toBe(first.userTurn.id);
    expect(api.requests).toHaveLength(1);
    expect(await countTurnRows(ledger)).toBe(turnsBefore);
    expect(await countEventRows(ledger)).toBe(eventsBefore);
    expect((await sessionHistory(ledger, session.id)).map((turn) => turn.id)).toEqual(first.turns.map((turn) => turn.id));
  });

  // A channel redelivers because no answer went out: the recorded message is answered, not skipped.
  it('redelivered after its first answer failed, is answered now rather than reported as a duplicate', async () => {
    const { api, ledger, runtime, session } = await setup();
    api.setResponder(() => SERVER_ERROR);
    await expect(runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND })).rejects.toBeInstanceOf(
      ModelError,
    );
    api.setResponder(() => ({ kind: 'text', text: 'Looking into the staging deploy.' }));
    const again = await runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND });
    expect(again.duplicate).toBe(false);
    expect(again.reply).not.toBeNull();
    const history = await sessionHistory(ledger, session.id);
    expect(history.filter((turn) => turn.turnType === 'normal' && turn.role === 'user')).toHaveLength(1);
  });

  it('without an events ledger is refused with InvalidInputError, and nothing is written or sent', async () => {
    const { api, ledger, runtime, session } = await setup({ withEvents: false });
    const error = await rejection(runtime.runTurn(session.id, 'Deploy failed on staging', { inbound: INBOUND }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe('inbound');
    expect(await countTurnRows(ledger)).toBe(0);
    expect(await countEventRows(ledger)).toBe(0);
    expect(api.requests).toHaveLength(0);
  });
});

describe('bad input', () => {
  it('an unknown session is SessionNotFoundError before anything is written (no event, no turn, no request)', async () => {
    const { api, ledger, runtime } = await setup();
    const error = await rejection(runtime.runTurn('s_missing', 'hello', { inbound: INBOUND }));
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect((error as SessionNotFoundError).code).toBe('SESSION_NOT_FOUND');
    expect(await countTurnRows(ledger)).toBe(0);
    expect(await countEventRows(ledger)).toBe(0);
    expect(api.requests).toHaveLength(0);
  });

  it('an empty or blank message is InvalidInputError, and nothing is written or sent', async () => {
    const { api, ledger, runtime, session } = await setup();
    for (const input of ['', '   \n\t']) {
      const error = await rejection(runtime.runTurn(session.id, input, { inbound: INBOUND }));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).field).toBe('input');
    }
    expect(await countTurnRows(ledger)).toBe(0);
    expect(await countEventRows(ledger)).toBe(0);
    expect(api.requests).toHaveLength(0);
  });
});

describe('tool rounds', () => {
  it('search_history: the call, its result naming the earlier turn, then the answer; the second request carries the result', async () => {
    const { api, ledger, runtime, session, notices } = await setup();
    const planted = await runtime.runTurn(session.id, 'My locker code is zanzibar42, keep it safe.');
    await runtime.runTurn(session.id, 'The gym opens at six on weekdays.');
    const call: ContentBlock[] = [
      { type: 'text', text: 'Let me search the history.' },
      { type: 'tool_use', id: 'toolu_search_1', name: 'search_history', input: { query: 'zanzibar42' } },
    ];
    api.enqueue({ kind: 'content', content: call }, { kind: 'text', text: 'Your locker code is zanzibar42.' });
    const requestsBefore = api.requests.length;

    const result = await runtime.runTurn(session.id, 'What was my locker code?');
    expect(result.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const [question, callTurn, resultTurn, answer] = result.turns;
    expect(contentOf(callTurn)).toEqual(call);
    expect(callTurn).toMatchObject({ model: CHAT_MODEL, toolCallCount: 1, metadata: { stopReason: 'tool_use' } });
    const [toolResult] = contentOf(resultTurn);
    expect(contentOf(resultTurn)).toHaveLength(1);
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_search_1' });
    expect(toolResult && 'is_error' in toolResult).toBe(false);
    const found = toolResult?.type === 'tool_result' ? String(toolResult.content) : '';
    expect(found).toContain(planted.userTurn.id);
    expect(found).toContain('zanzibar42');
    expect(contentOf(answer)).toEqual(text('Your locker code is zanzibar42.'));
    expect(result.text).toBe('Your locker code is zanzibar42.');
    expect(result.reply).toEqual(answer);
    expect(result.modelCalls).toBe(2);

    // Two requests for this turn; the second ends with the call and its result.
    expect(api.requests.length - requestsBefore).toBe(2);
    const second = requestAt(api, -1).body;
    expect(second.messages.at(-2)).toEqual({ role: 'assistant', content: call });
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: contentOf(resultTurn) });
    expect(second.messages.at(-3)).toEqual({ role: 'user', content: text('What was my locker code?') });
    expect(toolNames(requestAt(api, -1))).toEqual(['search_history']);

    expect(notices).toContainEqual({
      type: 'tool-call',
      sessionId: session.id,
      name: 'search_history',
      input: { query: 'zanzibar42' },
      isError: false,
    });
    const history = await sessionHistory(ledger, session.id);
    expect(history.slice(-4).map((turn) => turn.id)).toEqual([question?.id, callTurn?.id, resultTurn?.id, answer?.id]);
  });

  it('an unknown tool name gets an is_error result listing the tools, and the loop carries on', async () => {
    const { api, runtime, session, notices } = await setup();
    api.enqueue(
      { kind: 'content', content: [{ type: 'tool_use', id: 'toolu_x', name: 'launch_rockets', input: { count: 3 } }] },
      { kind: 'text', text: 'I cannot launch rockets.' },
    );
    const result = await runtime.runTurn(session.id, 'Launch three rockets.');
    expect(contentOf(result.turns[2])).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_x',
        content: 'No tool named "launch_rockets". Available: search_history.',
        is_error: true,
      },
    ]);
    expect(result.text).toBe('I cannot launch rockets.');
    expect(result.turns).toHaveLength(4);
    expect(api.requests).toHaveLength(2);
    expect(notices).toContainEqual(expect.objectContaining({ type: 'tool-call', name: 'launch_rockets', isError: true }));
  });

  it('runs a custom tool from options.tools, and a tool that throws becomes an is_error result', async () => {
    const seen: Array<{ input: unknown; sessionId: string; turnIds: readonly string[] }> = [];
    const portTool: RuntimeTool = {
      definition: {
        name: 'lookup_port',
        description: 'Looks up the port a service listens on.',
        input_schema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
      },
      async run(input, context) {
        seen.push({ input, ...context });
        return { content: `${(input as { service: string }).service} listens on 6379` };
      },
    };
    const brokenTool: RuntimeTool = {
      definition: { name: 'restart_service', description: 'Restarts a service.', input_schema: { type: 'object' } },
      async run() {
        throw new Error('permission denied');
      },
    };
    const { api, runtime, session, notices } = await setup({ tools: [portTool, brokenTool] });
    api.enqueue(
      {
        kind: 'content',
        content: [
          { type: 'tool_use', id: 'toolu_port', name: 'lookup_port', input: { service: 'cache' } },
          { type: 'tool_use', id: 'toolu_restart', name: 'restart_service', input: {} },
        ],
      },
      { kind: 'text', text: 'The cache is on 6379; I could not restart it.' },
    );
    const result = await runtime.runTurn(session.id, 'Which port is the cache on? Restart it.');

    expect(toolNames(requestAt(api, 0))).toEqual(['search_history', 'lookup_port', 'restart_service']);
    expect(runtime.tools.map((tool) => tool.name)).toEqual(['search_history', 'lookup_port', 'restart_service']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.input).toEqual({ service: 'cache' });
    expect(seen[0]?.sessionId).toBe(session.id);
    expect(seen[0]?.turnIds).toContain(result.userTurn.id);
    expect(contentOf(result.turns[2])).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_port', content: 'cache listens on 6379' },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_restart',
        content: 'The tool restart_service failed: permission denied',
        is_error: true,
      },
    ]);
    expect(result.text).toBe('The cache is on 6379; I could not restart it.');
    expect(notices.filter((notice) => notice.type === 'tool-call').map((notice) => [notice.name, notice.isError])).toEqual([
      ['lookup_port', false],
      ['restart_service', true],
    ]);
  });

  it('after maxToolRounds the last call keeps the tools but may not use them (tool_choice none), and its answer ends the turn', async () => {
    const { api, runtime, session } = await setup({ maxToolRounds: 2 });
    let calls = 0;
    api.setResponder((request) => {
      if ((request.body.tool_choice as { type?: string } | undefined)?.type === 'none')
        return { kind: 'text', text: 'Here is what I found so far.' };
      calls += 1;
      return {
        kind: 'content',
        content: [{ type: 'tool_use', id: `toolu_loop_${calls}`, name: 'search_history', input: { query: 'anything' } }],
      };
    });
    const result = await runtime.runTurn(session.id, 'Search everything, forever.');

    expect(api.requests).toHaveLength(3);
    expect(toolNames(requestAt(api, 0))).toEqual(['search_history']);
    expect(toolNames(requestAt(api, 1))).toEqual(['search_history']);
    // The API refuses tool_use / tool_result blocks in a request that defines no tools.
    expect(toolNames(requestAt(api, 2))).toEqual(['search_history']);
    expect(requestAt(api, 2).body.tool_choice).toEqual({ type: 'none' });
    expect('tool_choice' in requestAt(api, 0).body).toBe(false);
    expect(result.modelCalls).toBe(3);
    expect(result.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(result.text).toBe('Here is what I found so far.');
  });

  it('ends the turn when the model calls a tool past the limit anyway: its calls get error results, no further request', async () => {
    const { api, ledger, runtime, session } = await setup({ maxToolRounds: 1 });
    let calls = 0;
    api.setResponder(() => {
      calls += 1;
      return {
        kind: 'content',
        content: [{ type: 'tool_use', id: `toolu_stubborn_${calls}`, name: 'search_history', input: { query: 'x' } }],
      };
    });
    const result = await runtime.runTurn(session.id, 'Keep searching.');

    expect(api.requests).toHaveLength(2);
    expect(result.modelCalls).toBe(2);
    const last = result.turns.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_stubborn_2',
        content: 'Not run: this turn used its 1 tool rounds.',
        is_error: true,
      },
    ]);
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('model failures', () => {
  it('a 500 beyond the retries is ModelError; the user turn stays, no reply; respond() then answers it without a second user turn', async () => {
    const { ledger, session } = await setup();
    const api = await resources.server({ respond: () => SERVER_ERROR });
    const runtime = resources.runtime(createChatRuntime({ ledger, model: chatModel(api, { maxRetries: 1 }) }));

    const error = await rejection(runtime.runTurn(session.id, 'Summarize the incident for the postmortem.'));
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).code).toBe('MODEL_FAILED');
    expect(error.message).toContain('HTTP 500');
    expect(api.requests).toHaveLength(2);
    const history = await sessionHistory(ledger, session.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ role: 'user', content: text('Summarize the incident for the postmortem.') });
    expect((await ledger.getSession(session.id)).headTurnId).toBe(history[0]?.id);

    api.setResponder(() => ({ kind: 'text', text: 'The cache ran out of memory at 02:14.' }));
    const result = await runtime.respond(session.id);
    expect(result.userTurn.id).toBe(history[0]?.id);
    expect(result.turns.map((turn) => turn.role)).toEqual(['assistant']);
    expect(result.text).toBe('The cache ran out of memory at 02:14.');
    expect(requestAt(api, -1).body.messages).toEqual([
      { role: 'user', content: text('Summarize the incident for the postmortem.') },
    ]);
    const after = await sessionHistory(ledger, session.id);
    expect(after.map((turn) => turn.id)).toEqual([history[0]?.id, result.reply?.id]);
    expect(await countTurnRows(ledger)).toBe(2);
  });

  it('a hung connection ends with ModelError after timeoutMs; the user turn stays', async () => {
    const { ledger, session } = await setup();
    const api = await resources.server();
    api.enqueue({ kind: 'hang' });
    const runtime = resources.runtime(createChatRuntime({ ledger, model: chatModel(api, { timeoutMs: 200 }) }));
    const error = await rejection(runtime.runTurn(session.id, 'Are you there?'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain('timed out');
    const history = await sessionHistory(ledger, session.id);
    expect(history.map((turn) => turn.turnType === 'normal' && turn.role)).toEqual(['user']);
  });

  it('a reply with no content is ModelError and nothing is recorded for it', async () => {
    const { api, ledger, runtime, session } = await setup();
    api.enqueue({ kind: 'content', content: [] });
    const error = await rejection(runtime.runTurn(session.id, 'Say something.'));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toContain('no content');
    expect(await sessionHistory(ledger, session.id)).toHaveLength(1);
  });

  it('respond() refuses a session with no turns, or whose head is already answered', async () => {
    const { api, runtime, session } = await setup();
    expect(await rejection(runtime.respond(session.id))).toBeInstanceOf(InvalidInputError);
    await runtime.runTurn(session.id, 'Hello.');
    expect(await rejection(runtime.respond(session.id))).toBeInstanceOf(InvalidInputError);
    expect(api.requests).toHaveLength(1);
  });
});

describe('the offline model', () => {
  it('acknowledges a statement with an [offline model] Noted reply and calls no tool', async () => {
    const { runtime, session } = await setup({ model: createOfflineChatModel() });
    const result = await runtime.runTurn(session.id, 'The staging database password rotates every Tuesday at noon.');
    expect(result.turns).toHaveLength(2);
    expect(result.text.startsWith('[offline model] Noted: "The staging database password rotates every Tuesday at noon."')).toBe(
      true,
    );
    expect(result.reply?.model).toBe(OFFLINE_MODEL_NAME);
  });

  it('answers a question by calling search_history and quoting an earlier turn, not the question itself', async () => {
    let next = 0;
    const { runtime, session } = await setup({
      model: createOfflineChatModel({ generateToolUseId: () => `toolu_offline_${++next}` }),
    });
    const statement = await runtime.runTurn(session.id, 'The staging database password rotates every Tuesday at noon.');
    await runtime.runTurn(session.id, 'The build cache is cleared on Fridays.');
    const result = await runtime.runTurn(session.id, 'When does the staging password rotate?');

    expect(result.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const call = contentOf(result.turns[1]).find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', id: 'toolu_offline_1', name: 'search_history' });
    expect(result.text.startsWith('[offline model] From the history: ')).toBe(true);
    const quoted = /From the history: (\S+) /.exec(result.text)?.[1];
    expect(statement.turns.map((turn) => turn.id)).toContain(quoted);
    expect(quoted).not.toBe(result.userTurn.id);
    expect(result.text).toContain('Tuesday');
  });
});
