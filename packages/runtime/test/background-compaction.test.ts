// Threshold compaction off the critical path. The chat model answers from one loopback server and
// the Anthropic summarizer talks to a second, slow one: a turn asked while the summary is still being
// written is answered at once, and the compaction lands after it. Also: anti-thrash (minGrowthTokens),
// background: false, a deferred (failing) summarizer, and manual compaction with instructions.

import { ModelError, SummarizerError, type Turn } from '@agent-ledger/core';
import { type LoopbackApi, type LoopbackReply, lastUserText } from '@agent-ledger/loopback-api';
import { type AnthropicSummarizerOptions, createAnthropicSummarizer } from '@agent-ledger/summarizers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChatRuntime,
  type CompactionNotice,
  type CompactionPolicy,
  createChatRuntime,
  type RuntimeNotice,
} from '../src/index.ts';
import {
  chatModel,
  compactions,
  newSession,
  normalTurns,
  overflowReply,
  prose,
  Resources,
  SERVER_ERROR,
  sessionHistory,
  until,
} from './helpers.ts';

const resources = new Resources();
afterEach(() => resources.close());

const SUMMARY_MODEL = 'claude-summary-test';
const SUMMARY = 'The user reported deploy, invoice and queue work; reviews wait on the budget [t_000001].';
/** Small enough that a few turns cross the threshold (limit 500). */
const SMALL = { contextWindow: 600, reserveTokens: 100, keepRecentTokens: 150 };

interface Setup {
  /** What the summary server answers; none means the ledger's extractive summarizer is used. */
  summary?: LoopbackReply;
  summarizer?: Partial<AnthropicSummarizerOptions>;
  compaction?: CompactionPolicy;
  settings?: typeof SMALL;
}

async function setup(options: Setup = {}) {
  const chatApi = await resources.server({ respond: () => ({ kind: 'text', text: 'Noted.' }) });
  let summaryApi: LoopbackApi | null = null;
  const reply = options.summary;
  if (reply) summaryApi = await resources.server({ respond: () => reply });
  const summarizer = summaryApi
    ? createAnthropicSummarizer({
        apiKey: 'test-key',
        baseURL: summaryApi.url,
        timeoutMs: 30_000,
        maxRetries: 0,
        model: SUMMARY_MODEL,
        ...options.summarizer,
      })
    : undefined;
  const { ledger } = resources.ledgers(summarizer ? { summarizer } : {});
  const notices: RuntimeNotice[] = [];
  const runtime = resources.runtime(
    createChatRuntime({
      ledger,
      model: chatModel(chatApi),
      onNotice: (notice) => notices.push(notice),
      ...(options.compaction ? { compaction: options.compaction } : {}),
    }),
  );
  const session = await newSession(ledger, options.settings ?? SMALL);
  return { chatApi, summaryApi, ledger, runtime, session, notices };
}

function ofType<Type extends CompactionNotice['type']>(
  notices: readonly RuntimeNotice[],
  type: Type,
): Array<Extract<CompactionNotice, { type: Type }>> {
  return notices.filter((notice): notice is Extract<CompactionNotice, { type: Type }> => notice.type === type);
}

function ids(turns: readonly Turn[]): string[] {
  return turns.map((turn) => turn.id);
}

/** Runs small turns until a threshold compaction is in flight; returns the turns appended. */
async function startCompaction(runtime: ChatRuntime, sessionId: string): Promise<Turn[]> {
  const answered: Turn[] = [];
  for (let index = 0; !runtime.compactionInFlight(sessionId); index += 1) {
    expect(index).toBeLessThan(40);
    answered.push(...(await runtime.runTurn(sessionId, prose(20, index))).turns);
  }
  return answered;
}

describe('a threshold compaction in the background', () => {
  it('does not stall the chat: a turn asked while the summary is pending is answered, and the compaction lands after it', async () => {
    const { summaryApi, ledger, runtime, session, notices } = await setup({
      summary: { kind: 'text', text: SUMMARY, delayMs: 2500 },
    });
    if (!summaryApi) throw new Error('no summary server');
    const answered = await startCompaction(runtime, session.id);
    const contextTokens = (await ledger.contextUsage(session.id)).contextTokens;
    await until(() => ofType(notices, 'compaction-started').length > 0 && summaryApi.pending === 1);
    expect(ofType(notices, 'compaction-started')).toEqual([
      { type: 'compaction-started', sessionId: session.id, trigger: 'threshold', contextTokens },
    ]);

    const meanwhile = await runtime.runTurn(session.id, 'Is the invoice queue drained yet?');
    expect(meanwhile.reply).not.toBeNull();
    expect(meanwhile.text).toBe('Noted.');
    // Still summarizing: the turn did not wait for it.
    expect(summaryApi.pending).toBe(1);
    expect(runtime.compactionInFlight(session.id)).toBe(true);
    expect(meanwhile.context.compactionTurnId).toBeNull();
    expect(compactions(await sessionHistory(ledger, session.id))).toEqual([]);

    await runtime.idle();
    expect(runtime.compactionInFlight(session.id)).toBe(false);
    expect(summaryApi.pending).toBe(0);
    expect(summaryApi.requests).toHaveLength(1);

    const history = await sessionHistory(ledger, session.id);
    const landed = compactions(history);
    expect(landed).toHaveLength(1);
    const [compaction] = landed;
    expect(compaction).toMatchObject({ trigger: 'threshold', summary: SUMMARY, summarizer: `anthropic/${SUMMARY_MODEL}` });
    // Linked in after the turn answered meanwhile.
    expect(ids(history).slice(-2)).toEqual([meanwhile.reply?.id, compaction?.id]);
    expect(ids(history).indexOf(compaction?.id ?? '')).toBeGreaterThan(ids(history).indexOf(meanwhile.userTurn.id));

    const [finished] = ofType(notices, 'compaction-finished');
    expect(finished?.compaction.id).toBe(compaction?.id);
    expect(finished?.savedTokens).toBeGreaterThan(0);
    expect(finished?.savedTokens).toBe((compaction?.tokensBefore ?? 0) - (compaction?.tokensAfter ?? 0));

    // Every turn once, in order; nothing lost to the compaction.
    expect(ids(normalTurns(history))).toEqual(ids([...answered, ...meanwhile.turns]));
    expect(await ledger.doctor()).toEqual([]);

    // The next turn starts from the summary.
    const next = await runtime.runTurn(session.id, 'And the deploy?');
    expect(next.context.compactionTurnId).toBe(compaction?.id);
  });

  it('an overflow while it runs waits for it and retries with it, rather than starting a second compaction', async () => {
    const { chatApi, summaryApi, ledger, runtime, session } = await setup({
      summary: { kind: 'text', text: SUMMARY, delayMs: 2000 },
    });
    if (!summaryApi) throw new Error('no summary server');
    await startCompaction(runtime, session.id);
    await until(() => summaryApi.pending === 1);
    // Figures a real API could give for this prompt (the runtime learns the window from them).
    chatApi.enqueue(overflowReply(650, 600));

    const result = await runtime.runTurn(session.id, 'Is the invoice queue drained yet?');
    expect(result.text).toBe('Noted.');
    expect(result.modelCalls).toBe(2);
    expect(result.overflowCompaction).toMatchObject({ trigger: 'threshold', summary: SUMMARY });
    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history).map((turn) => turn.id)).toEqual([result.overflowCompaction?.id]);
    expect(summaryApi.requests).toHaveLength(1);
    expect(await ledger.doctor()).toEqual([]);
  });

  // The compaction lands after the unanswered user turn and becomes the head; respond() looks past it.
  it('a model failure while it runs leaves the question for respond() to answer once it has landed', async () => {
    const { chatApi, summaryApi, runtime, session } = await setup({
      summary: { kind: 'text', text: SUMMARY, delayMs: 1000 },
    });
    if (!summaryApi) throw new Error('no summary server');
    await startCompaction(runtime, session.id);
    chatApi.setResponder(() => SERVER_ERROR);
    await expect(runtime.runTurn(session.id, 'Is the invoice queue drained yet?')).rejects.toBeInstanceOf(ModelError);
    await runtime.idle();
    chatApi.setResponder(() => ({ kind: 'text', text: 'Drained at 09:12.' }));
    const result = await runtime.respond(session.id);
    expect(result.text).toBe('Drained at 09:12.');
    expect(result.userTurn.content).toEqual([{ type: 'text', text: 'Is the invoice queue drained yet?' }]);
  });

  it('with background: false, the compaction is written within runTurn, right after its reply', async () => {
    const { ledger, runtime, session, notices } = await setup({ compaction: { background: false } });
    for (let index = 0; index < 40; index += 1) {
      const result = await runtime.runTurn(session.id, prose(20, index));
      const history = await sessionHistory(ledger, session.id);
      if (compactions(history).length === 0) continue;
      expect(runtime.compactionInFlight(session.id)).toBe(false);
      expect(history.at(-1)).toMatchObject({ turnType: 'compaction', trigger: 'threshold', parentTurnId: result.reply?.id });
      expect(notices.map((notice) => notice.type)).toEqual(['compaction-started', 'compaction-finished']);
      expect(await ledger.doctor()).toEqual([]);
      return;
    }
    throw new Error('no compaction after 40 turns');
  });
});

describe('anti-thrash', () => {
  /**
   * A session whose context stays over the limit after compacting: keepRecentTokens (480) is close
   * to the limit (500), so the kept turns plus the summary are over it. Small turns up to ~470
   * tokens, one large turn that crosses the limit, then six small turns.
   */
  async function overTheLimit(minGrowthTokens: number) {
    const fixture = await setup({
      compaction: { minGrowthTokens },
      settings: { contextWindow: 600, reserveTokens: 100, keepRecentTokens: 480 },
    });
    const { ledger, runtime, session } = fixture;
    const turn = async (text: string) => {
      await runtime.runTurn(session.id, text);
      await runtime.idle(session.id);
      return ledger.contextUsage(session.id);
    };
    for (let index = 0; (await ledger.contextUsage(session.id)).contextTokens < 470; index += 1) await turn(prose(12, index));
    await turn(prose(100, 99));
    const usages = [];
    for (let index = 0; index < 6; index += 1) usages.push(await turn(prose(12, 200 + index)));
    return { ...fixture, usages, history: await sessionHistory(ledger, session.id) };
  }

  it('compacts once, then skips with a compaction-skipped notice while the context has not grown by minGrowthTokens', async () => {
    const { ledger, history, usages, notices } = await overTheLimit(100_000);
    expect(compactions(history)).toHaveLength(1);
    // The premise: every later turn is over the limit, so only the growth rule holds it back.
    expect(usages.every((usage) => usage.shouldCompact)).toBe(true);
    const afterCompaction = notices.slice(notices.findIndex((notice) => notice.type === 'compaction-finished') + 1);
    expect(afterCompaction.map((notice) => notice.type)).toEqual(usages.map(() => 'compaction-skipped'));
    for (const notice of ofType(afterCompaction, 'compaction-skipped')) {
      expect(notice.reason).toMatch(/the context grew \d+ tokens since the last compaction or attempt/);
      expect(notice.reason).toContain('100000');
    }
    expect(ofType(notices, 'compaction-finished')).toHaveLength(1);
    expect(await ledger.doctor()).toEqual([]);
  });

  it('(the same session with minGrowthTokens 1 compacts on every turn: what the rule prevents)', async () => {
    const { history, usages } = await overTheLimit(1);
    expect(compactions(history).length).toBeGreaterThanOrEqual(usages.length);
  });
});

describe('a summarizer that defers (onFailure: defer) and fails', () => {
  it('sends compaction-failed, writes no compaction, keeps every turn, and waits for minGrowthTokens before trying again', async () => {
    const minGrowthTokens = 60;
    const { summaryApi, ledger, runtime, session, notices } = await setup({
      summary: SERVER_ERROR,
      summarizer: { onFailure: 'defer' },
      compaction: { minGrowthTokens },
    });
    if (!summaryApi) throw new Error('no summary server');
    const appended: Turn[] = [];
    const turn = async (index: number) => {
      appended.push(...(await runtime.runTurn(session.id, prose(12, index))).turns);
      await runtime.idle(session.id);
    };
    let index = 0;
    while (ofType(notices, 'compaction-failed').length === 0) {
      expect(index).toBeLessThan(40);
      await turn(index++);
    }
    const [failed] = ofType(notices, 'compaction-failed');
    expect(failed?.trigger).toBe('threshold');
    expect(failed?.error).toBeInstanceOf(SummarizerError);
    expect(failed?.error.message).toContain('deferred');
    expect(summaryApi.requests).toHaveLength(1);
    const failedAt = ofType(notices, 'compaction-started')[0]?.contextTokens ?? 0;
    expect(compactions(await sessionHistory(ledger, session.id))).toEqual([]);

    let waited = 0;
    for (;;) {
      expect(index).toBeLessThan(80);
      await turn(index++);
      const grown = (await ledger.contextUsage(session.id)).contextTokens - failedAt;
      if (grown < minGrowthTokens) {
        waited += 1;
        expect(summaryApi.requests).toHaveLength(1);
        expect(notices.at(-1)).toMatchObject({ type: 'compaction-skipped' });
        continue;
      }
      expect(summaryApi.requests).toHaveLength(2);
      break;
    }
    expect(waited).toBeGreaterThan(0);
    expect(ofType(notices, 'compaction-failed')).toHaveLength(2);

    const history = await sessionHistory(ledger, session.id);
    expect(compactions(history)).toEqual([]);
    expect(ids(history)).toEqual(ids(appended));
    expect(await ledger.doctor()).toEqual([]);
  });
});

describe('manual compaction', () => {
  it('runtime.compact(sessionId, { instructions }) sends the instructions to the summarizer and waits for the turn', async () => {
    const { summaryApi, ledger, runtime, session, notices } = await setup({
      summary: { kind: 'text', text: SUMMARY },
      compaction: { auto: false },
    });
    if (!summaryApi) throw new Error('no summary server');
    for (let index = 0; index < 8; index += 1) await runtime.runTurn(session.id, prose(20, index));
    expect(summaryApi.requests).toHaveLength(0);

    const compaction = await runtime.compact(session.id, { instructions: 'Keep every invoice number.' });
    expect(summaryApi.requests).toHaveLength(1);
    const prompt = lastUserText(summaryApi.requests[0]?.body ?? { model: '', messages: [] });
    expect(prompt).toContain('<instructions>\nKeep every invoice number.\n</instructions>');
    expect(compaction).toMatchObject({ trigger: 'manual', summary: SUMMARY });
    expect((await sessionHistory(ledger, session.id)).at(-1)?.id).toBe(compaction.id);
    expect(ofType(notices, 'compaction-finished').map((notice) => notice.compaction.id)).toEqual([compaction.id]);
  });

  it("the policy's standing instructions go with every automatic compaction", async () => {
    const { summaryApi, runtime, session } = await setup({
      summary: { kind: 'text', text: SUMMARY },
      compaction: { instructions: 'Keep ticket numbers verbatim.' },
    });
    if (!summaryApi) throw new Error('no summary server');
    for (let index = 0; summaryApi.requests.length === 0; index += 1) {
      expect(index).toBeLessThan(40);
      await runtime.runTurn(session.id, prose(20, index));
      await runtime.idle(session.id);
    }
    const prompt = lastUserText(summaryApi.requests[0]?.body ?? { model: '', messages: [] });
    expect(prompt).toContain('<instructions>\nKeep ticket numbers verbatim.\n</instructions>');
  });
});
