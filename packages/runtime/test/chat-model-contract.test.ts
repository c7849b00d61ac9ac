// The ChatModel contract (chat-model-contract.ts) for both models the runtime ships: the offline
// model as it is, and the Anthropic model on the real SDK against the loopback Messages API, whose
// replies and faults are scripted per case.

import { echoResponder, type LoopbackReply, lastUserText, type Responder, type Route } from '@agent-ledger/loopback-api';
import { afterEach } from 'vitest';
import { createOfflineChatModel } from '../src/index.ts';
import { chatModelContract, unsupported } from './chat-model-contract.ts';
import { chatModel, overflowReply, Resources, SERVER_ERROR, until } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

chatModelContract('the offline chat model', {
  create: async () => createOfflineChatModel(),
  // It calls the recall tool on a question by itself, and not when the toolChoice is none.
  createToolCaller: async () => createOfflineChatModel(),
  abort: unsupported('it answers at once from the request alone and does not read the signal'),
  overflows: unsupported('it has no context window: every prompt fits'),
  failures: unsupported('it calls no provider, so nothing outside it can fail'),
  countTokens: unsupported('it tokenizes nothing (docs/runtime.md: it reports zero usage)'),
});

/**
 * Plays a model that reaches for the first tool it is offered whenever it may, the way the API
 * treats `tool_choice`: with `none` it answers in text. Each call gets an id of its own.
 */
function toolCallingResponder(): Responder {
  let calls = 0;
  return (request) => {
    const tool = request.body.tools?.[0];
    const choice = request.body.tool_choice as { type?: string } | undefined;
    if (!tool || choice?.type === 'none') return echoResponder(request);
    calls += 1;
    return {
      kind: 'content',
      content: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: `toolu_loopback_${calls}`, name: tool.name, input: { query: lastUserText(request.body) } },
      ],
    };
  };
}

chatModelContract('the Anthropic chat model', {
  create: async () => chatModel(await resources.server()),
  createToolCaller: async () => chatModel(await resources.server({ respond: toolCallingResponder() })),
  abort: {
    createSlow: async () => {
      const api = await resources.server({ respond: () => ({ kind: 'hang' }) });
      // A timeout far past the case's: only the abort can end the call in time.
      return { model: chatModel(api, { timeoutMs: 600_000 }), started: () => until(() => api.pending > 0) };
    },
  },
  overflows: [
    {
      label: "the API's 400 for a prompt over its window",
      create: async () => {
        const api = await resources.server({ contextWindow: 5 });
        return { model: chatModel(api), figures: () => ({ promptTokens: api.requests[0]?.inputTokens ?? -1, limitTokens: 5 }) };
      },
    },
    {
      label: "the API's 400 worded with large figures",
      create: async () => {
        const api = await resources.server();
        api.enqueue(overflowReply(210_000, 200_000));
        return { model: chatModel(api), figures: () => ({ promptTokens: 210_000, limitTokens: 200_000 }) };
      },
    },
    {
      label: "the API's 413 request_too_large (no figures)",
      create: async () => {
        const api = await resources.server();
        api.enqueue({ kind: 'error', status: 413, errorType: 'request_too_large', message: 'Request exceeds the maximum size.' });
        return { model: chatModel(api), figures: () => ({ promptTokens: null, limitTokens: null }) };
      },
    },
  ],
  failures: [
    { label: 'an HTTP 500 that outlasts the retries', create: async () => scripted(SERVER_ERROR) },
    {
      label: 'an HTTP 400 that is not about length',
      create: async () =>
        scripted({
          kind: 'error',
          status: 400,
          errorType: 'invalid_request_error',
          message: 'tools.0.name: String should match',
        }),
    },
    {
      label: 'an HTTP 401 (a bad key)',
      create: async () =>
        scripted({ kind: 'error', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' }),
    },
    {
      label: 'a 200 with malformed JSON',
      create: async () => scripted({ kind: 'raw', status: 200, body: '{"id": "msg_1", "content": [' }),
    },
    {
      label: 'a request that outlasts timeoutMs',
      create: async () => chatModel(await serverWith({ kind: 'hang' }), { timeoutMs: 200 }),
    },
    {
      label: 'a server that is not there',
      create: async () => {
        const api = await resources.server();
        await api.close();
        return chatModel(api);
      },
    },
  ],
  countTokens: {
    createFailing: async () =>
      chatModel(await serverWith({ route: 'count_tokens', kind: 'error', status: 500, errorType: 'api_error', message: 'down' })),
  },
});

/** A loopback server whose first answer (on `route`, messages by default) is `reply`. */
async function serverWith(reply: LoopbackReply & { route?: Route }) {
  const api = await resources.server();
  api.enqueue(reply);
  return api;
}

async function scripted(reply: LoopbackReply) {
  return chatModel(await serverWith(reply));
}
