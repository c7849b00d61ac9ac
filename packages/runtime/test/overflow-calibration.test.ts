// Overflow recovery believes the provider. When the API's count is far above the ledger's estimate
// (a tokenizer that counts more, a session told the wrong window, a proxy to a smaller model), the
// runtime learns the real window from "prompt is too long: N tokens > M maximum", compacts to fit
// it, and every later turn succeeds — also after a restart, because the session keeps what it
// learned. Real SDK against the loopback Messages API, which here counts many times the estimate.

import { ContextOverflowError } from '@agent-ledger/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatRuntime, type RuntimeNotice } from '../src/index.ts';
import { chatModel, compactions, newSession, normalTurns, prose, Resources, rejection, sessionHistory } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

describe('a provider that counts far more than the ledger estimates', () => {
  it('learns the window from the first overflow, then every turn is answered, also after a restart', async () => {
    // The API counts 150 times the estimate against a 200,000-token window: about 1,300 estimated
    // tokens are all it takes. Without calibration the session fails on every line from there on.
    const api = await resources.server({
      respond: () => ({ kind: 'text', text: 'Noted.' }),
      tokenMultiplier: 150,
      contextWindow: 200_000,
    });
    const { ledger, file } = resources.ledgers();
    const notices: RuntimeNotice[] = [];
    const runtime = resources.runtime(
      createChatRuntime({ ledger, model: chatModel(api), onNotice: (notice) => notices.push(notice) }),
    );
    const session = await newSession(ledger, { contextWindow: 200_000, reserveTokens: 20_000, keepRecentTokens: 30_000 });

    let overflowAt = -1;
    for (let index = 0; index < 40; index += 1) {
      const result = await runtime.runTurn(session.id, prose(40, index));
      expect(result.text).toBe('Noted.');
      if (result.overflowCompaction !== null || result.modelCalls > 1) {
        overflowAt = index;
        break;
      }
    }
    expect(overflowAt, 'the conversation grew past the provider window').toBeGreaterThan(0);
    await runtime.idle();
    const learned = await ledger.getSession(session.id);
    expect(learned.calibration).toMatchObject({ providerWindowTokens: 200_000, originalSettings: { contextWindow: 200_000 } });
    expect(learned.calibration?.tokensPerEstimatedToken).toBeGreaterThan(100);
    // The settings are the provider's window in the ledger's units, with the user's proportions.
    expect(learned.settings.contextWindow).toBeLessThan(200_000 / 100);
    expect(learned.settings.reserveTokens).toBeLessThan(learned.settings.contextWindow);
    expect(notices.some((notice) => notice.type === 'window-learned')).toBe(true);

    // Every later line is answered at the first request: no overflow again.
    for (let index = 100; index < 110; index += 1) {
      const before = api.requests.length;
      const result = await runtime.runTurn(session.id, prose(40, index));
      expect(result.text).toBe('Noted.');
      expect(api.requests.length - before, `turn ${index} was sent once`).toBe(1);
      await runtime.idle();
    }
    // Only the one request that taught the window was over it.
    expect(api.requests.filter((request) => request.inputTokens > 200_000)).toHaveLength(1);

    // A restart keeps the learned window.
    const reopened = resources.reopen(file);
    const restarted = resources.runtime(createChatRuntime({ ledger: reopened, model: chatModel(api) }));
    expect((await reopened.getSession(session.id)).settings).toEqual((await ledger.getSession(session.id)).settings);
    const before = api.requests.length;
    const result = await restarted.runTurn(session.id, prose(40, 999));
    expect(result.text).toBe('Noted.');
    expect(api.requests.length - before).toBe(1);

    // Nothing was lost on the way: every message and reply is in the history, once, in order.
    const history = await sessionHistory(reopened, session.id);
    expect(normalTurns(history)).toHaveLength(2 * (overflowAt + 1) + 2 * 10 + 2);
    expect(compactions(history).length).toBeGreaterThan(0);
    expect(await reopened.doctor()).toEqual([]);
  });

  it('with count-tokens before sending, a learned window keeps every later line answered (the exact count is compared in the provider’s units)', async () => {
    const api = await resources.server({ respond: () => ({ kind: 'text', text: 'Noted.' }), tokenMultiplier: 4 });
    const { ledger } = resources.ledgers();
    const runtime = resources.runtime(
      createChatRuntime({ ledger, model: chatModel(api), countTokensBeforeSending: true, retrieval: false }),
    );
    const session = await newSession(ledger, { contextWindow: 20_000, reserveTokens: 2_000, keepRecentTokens: 3_000 });
    const failures: string[] = [];
    for (let index = 0; index < 120; index += 1) {
      await runtime
        .runTurn(session.id, prose(30, index))
        .catch((error: Error) => failures.push(`line ${index}: ${error.message}`));
      await runtime.idle();
    }
    expect(failures).toEqual([]);
    const learned = await ledger.getSession(session.id);
    expect(learned.calibration).not.toBeNull();
    // Every prompt generated from was within the provider's limit as count-tokens counted it.
    for (const request of api.requests.filter((each) => each.route === 'messages'))
      expect(request.inputTokens).toBeLessThanOrEqual(18_000);
  });

  it('a fork inherits the learned window; a fork given its own window does not', async () => {
    const api = await resources.server({
      respond: () => ({ kind: 'text', text: 'Noted.' }),
      tokenMultiplier: 150,
      contextWindow: 200_000,
    });
    const { ledger } = resources.ledgers();
    const session = await newSession(ledger, { contextWindow: 200_000, reserveTokens: 20_000, keepRecentTokens: 30_000 });
    const turn = await ledger.appendTurn(session.id, { role: 'user', content: prose(40, 1) });
    const calibrated = await ledger.calibrate(session.id, {
      promptTokens: 201_026,
      estimatedTokens: 1_324,
      providerWindowTokens: 200_000,
    });
    expect(calibrated.settings.contextWindow).toBe(Math.floor((200_000 / (201_026 / 1_324)) * 0.9));
    const inherited = await ledger.forkFrom(turn.id);
    expect(inherited.session.settings).toEqual(calibrated.settings);
    expect(inherited.session.calibration).toEqual(calibrated.calibration);
    const own = await ledger.forkFrom(turn.id, {
      settings: { contextWindow: 8_000, reserveTokens: 1_000, keepRecentTokens: 2_000 },
    });
    expect(own.session.calibration).toBeNull();
    // Other settings given alone are the user's units, rescaled like the rest; the calibration stays.
    const partial = await ledger.forkFrom(turn.id, { settings: { keepRecentTokens: 10_000 } });
    expect(partial.session.calibration?.originalSettings).toEqual({
      contextWindow: 200_000,
      reserveTokens: 20_000,
      keepRecentTokens: 10_000,
    });
    expect(partial.session.settings.contextWindow).toBe(calibrated.settings.contextWindow);
    expect(partial.session.settings.keepRecentTokens).toBeLessThan(calibrated.settings.keepRecentTokens);
    // A second report never compounds: it starts again from the user's own settings.
    const again = await ledger.calibrate(session.id, {
      promptTokens: 201_026,
      estimatedTokens: 1_324,
      providerWindowTokens: 200_000,
    });
    expect(again.settings).toEqual(calibrated.settings);
    expect(api.requests).toHaveLength(0);
  });

  it('a window too small to hold any conversation is one actionable error, not the same failure on every line', async () => {
    const api = await resources.server({
      respond: () => ({ kind: 'text', text: 'Noted.' }),
      tokenMultiplier: 5000,
      contextWindow: 200_000,
    });
    const { ledger } = resources.ledgers();
    const runtime = resources.runtime(createChatRuntime({ ledger, model: chatModel(api) }));
    const session = await newSession(ledger);
    const error = await rejection(runtime.runTurn(session.id, prose(40, 1)));
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(error.message).toContain('too small for a conversation');
    expect(error.message).toContain('larger window');
    expect(api.requests).toHaveLength(1);
    expect(normalTurns(await sessionHistory(ledger, session.id))).toHaveLength(1);
    // What the model said is recorded: the next line is refused before anything is sent.
    const again = await rejection(runtime.runTurn(session.id, prose(40, 2)));
    expect(again.message).toContain('Not sent');
    expect(again.message).toContain('nexus fork');
    expect(api.requests).toHaveLength(1);
  });
});
