// One implausible "prompt is too long" cannot end a session. The probe of issue 29: a 60-line chat
// whose 10th request gets a bogus report from the API (a proxy's miscount) of 1e9, 5e6, 1.5e6 or
// 4e5 tokens against a 200,000-token window. Before, the learned ratio made the window nothing and
// every later line was refused locally (9 of 60 answered with 1.5e6). Now the prompts the model
// already answered are the evidence: the report is set aside, the prompt goes again as it was, and
// the chat goes on. Real SDK against the loopback Messages API, real ledger on a SQLite file.

import { promptTooLong } from '@agent-ledger/loopback-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatRuntime, type RuntimeNotice } from '../src/index.ts';
import { chatModel, newSession, normalTurns, prose, Resources, sessionHistory } from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const LINES = 60;
const WINDOW = 200_000;

/** Sends the probe's lines; the ones that failed are counted, never thrown. */
async function probe(misreportedTokens: number, options: { atRequests?: number[] } = {}) {
  const api = await resources.server({ respond: () => ({ kind: 'text', text: 'Noted.' }), contextWindow: WINDOW });
  for (const at of options.atRequests ?? [10]) api.replyAt(at, promptTooLong(misreportedTokens, WINDOW));
  const { ledger } = resources.ledgers();
  const notices: RuntimeNotice[] = [];
  const runtime = resources.runtime(
    createChatRuntime({ ledger, model: chatModel(api), onNotice: (notice) => notices.push(notice) }),
  );
  const session = await newSession(ledger, { contextWindow: WINDOW, reserveTokens: 20_000, keepRecentTokens: 30_000 });
  const failures: string[] = [];
  let answered = 0;
  for (let line = 0; line < LINES; line += 1) {
    try {
      const result = await runtime.runTurn(session.id, prose(30, line));
      if (result.text === 'Noted.') answered += 1;
    } catch (error) {
      failures.push(`line ${line + 1}: ${(error as Error).message}`);
    }
    await runtime.idle();
  }
  const history = normalTurns(await sessionHistory(ledger, session.id));
  return { api, ledger, session: await ledger.getSession(session.id), notices, failures, answered, history };
}

describe('a bogus "prompt is too long" at the 10th request of a 60-line chat', () => {
  for (const misreported of [1e9, 5e6, 1.5e6, 4e5]) {
    it(`of ${misreported} tokens: the report is set aside, the prompt is sent again as it was, and every line is answered`, async () => {
      const { api, session, notices, failures, answered, history } = await probe(misreported);
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThanOrEqual(59);
      expect(answered).toBe(LINES);
      // One request more than lines: the refused one, sent again unchanged.
      const messages = api.requests.filter((request) => request.route === 'messages');
      expect(messages).toHaveLength(LINES + 1);
      expect(messages[10]?.body.messages).toEqual(messages[9]?.body.messages);
      // Nothing learned, nothing compacted, nothing lost: every line and every answer is in the ledger.
      expect(session.calibration).toBeNull();
      expect(session.settings.contextWindow).toBe(WINDOW);
      expect(notices.filter((notice) => notice.type === 'overflow-doubted')).toHaveLength(1);
      expect(notices.some((notice) => notice.type === 'window-learned' || notice.type === 'compaction-started')).toBe(false);
      expect(history).toHaveLength(2 * LINES);
    });
  }
});

describe('a misreport repeated', () => {
  it('is believed the third time, but the window is not learned below the prompts the model answered, and later answers undo it', async () => {
    // Requests 10 and 11 (the line's retry, unchanged) and 12 (the next line's first) are refused.
    const { failures, answered, notices, session, history } = await probe(1.5e6, { atRequests: [10, 11, 12] });
    // The one line whose two requests were both refused gets the error saying what happened.
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^line 10: The model refused the prompt as too long twice \(.*\)\. Its first report \(1500000 tokens > 200000\)/,
    );
    expect(failures[0]).toContain('the session was neither shrunk nor compacted');
    expect(answered).toBe(LINES - 1);
    // Nothing lost: the unanswered line is in the ledger too.
    expect(history.filter((turn) => turn.role === 'user')).toHaveLength(LINES);

    const doubted = notices.find((notice) => notice.type === 'overflow-doubted');
    const learned = notices.filter((notice) => notice.type === 'window-learned');
    if (doubted?.type !== 'overflow-doubted') throw new Error('no overflow-doubted notice');
    // Learned from the repeated report, held at the largest prompt the model had answered (less the
    // calibration's margin): without that floor the window would be about 1500000 / 200000 of it.
    expect(learned[0]).toMatchObject({ trigger: 'overflow' });
    const floored = learned[0]?.type === 'window-learned' ? learned[0].settings.contextWindow : 0;
    expect(floored).toBeGreaterThanOrEqual(Math.floor(doubted.doubt.acceptedTokens * 0.9));
    // The next answer's count (the loopback counts about what the ledger estimates) refutes it: the
    // window grows back to the user's, less the ratio the provider's counts show.
    expect(learned[1]).toMatchObject({ trigger: 'accepted-prompt' });
    expect(session.settings.contextWindow).toBeGreaterThan(WINDOW / 4);
    expect(session.calibration?.tokensPerEstimatedToken ?? 1).toBeLessThan(2);
  });
});
