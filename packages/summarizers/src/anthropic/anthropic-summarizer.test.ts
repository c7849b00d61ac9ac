// The Anthropic summarizer on the real SDK against the loopback Messages API: what it sends, what it
// returns and records, and how each failure (API errors after retries, timeouts, malformed replies,
// summaries the guards reject) falls back to another summarizer or defers the compaction.

import { estimateTokenCounter, SummarizerError } from '@agent-ledger/core';
import { type LoopbackApi, type LoopbackOptions, type LoopbackReply, startLoopbackApi } from '@agent-ledger/loopback-api';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../extractive/extractive-summarizer.ts';
import type { SummarizeInput, SummarizeResult, Summarizer } from '../summarizer.ts';
import { type AnthropicSummarizerOptions, createAnthropicSummarizer, DEFAULT_SUMMARY_MODEL } from './anthropic-summarizer.ts';
import { SUMMARY_SYSTEM_PROMPT } from './summary-prompt.ts';

const MODEL = 'claude-summary-test';
const count = (text: string) => estimateTokenCounter.countText(text);

let api: LoopbackApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function loopback(options: LoopbackOptions = {}): Promise<LoopbackApi> {
  api = await startLoopbackApi(options);
  return api;
}

function summarizerFor(server: LoopbackApi, options: AnthropicSummarizerOptions = {}): Summarizer {
  return createAnthropicSummarizer({
    apiKey: 'test-key',
    baseURL: server.url,
    timeoutMs: 10_000,
    maxRetries: 2,
    model: MODEL,
    ...options,
  });
}

const JANUARY_2 = Date.UTC(2024, 0, 2, 3, 4, 30);

/** Six turns of real-looking detail, about 190 estimated tokens: a short summary shrinks it a lot. */
function conversation(): SummarizeInput['turns'] {
  const texts = [
    'We should move the ledger from SQLite to Postgres 16 on db-3, port 5432, before the 2024-02-01 launch.',
    'Agreed. The migration script is scripts/migrate-ledger.ts and it needs DATABASE_URL=postgres://ledger@db-3:5432/ledger set.',
    'The schema decision: turns keep parent_turn_id and a depth column; compaction rows store summarized_through_turn_id.',
    'I ran `pnpm db:generate` and drizzle wrote drizzle/0007_turn_depth.sql with the new index idx_turns_session_depth.',
    'Alice owns the rollout and the budget is $1,200 a month for the db.r6g.large instance in eu-west-1.',
    'Noted. The rollback plan is to restore the nightly snapshot ledger-2024-01-31.tar.zst and repoint DATABASE_URL.',
  ];
  return texts.map((text, index) => ({
    id: `t_${String(index + 1).padStart(6, '0')}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    text,
    timestamp: JANUARY_2 + index * 60_000,
  }));
}

const SUMMARY = [
  'The ledger moves from SQLite to Postgres 16 on db-3:5432 before 2024-02-01 [t_000001].',
  'Migration: scripts/migrate-ledger.ts with DATABASE_URL=postgres://ledger@db-3:5432/ledger [t_000002].',
  'Alice owns the rollout; rollback restores ledger-2024-01-31.tar.zst [t_000005, t_000006].',
].join('\n');

const REFUSAL = "I'm sorry, but I don't see any conversation to summarize.";

function inputWith(overrides: Partial<SummarizeInput> = {}): SummarizeInput {
  return { turns: conversation(), targetTokens: 120, ...overrides };
}

function inputTokensOf(input: SummarizeInput): number {
  return count(input.previousSummary ?? '') + input.turns.reduce((total, turn) => total + count(turn.text), 0);
}

/** What the default fallback returns for `input`, computed on its own. */
function extractive(input: SummarizeInput): Promise<SummarizeResult> {
  return createExtractiveSummarizer().summarize(input);
}

/** The API's answer to every request, so retries see the same failure. */
function always(reply: LoopbackReply) {
  return () => reply;
}

const SERVER_ERROR: LoopbackReply = {
  kind: 'error',
  status: 500,
  errorType: 'api_error',
  message: 'Internal server error',
  headers: { 'retry-after': '0' },
};

/** The text of the single user message the summarizer sent. */
function sentPrompt(server: LoopbackApi, index = 0): string {
  const message = server.requests[index]?.body.messages[0];
  if (!message || typeof message.content !== 'string') throw new Error(`request ${index} has no text user message`);
  return message.content;
}

describe('createAnthropicSummarizer, when the model answers', () => {
  it('returns the model summary with the API usage, written by anthropic/<model>, with one call', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    const summarizer = summarizerFor(server);
    expect(summarizer.name).toBe('anthropic');

    const result = await summarizer.summarize(inputWith());
    const usage = { inputTokens: server.requests[0]?.inputTokens ?? -1, outputTokens: Math.ceil(SUMMARY.length / 4) };
    expect(result).toEqual({
      text: SUMMARY,
      usage,
      writtenBy: `anthropic/${MODEL}`,
      calls: [{ summarizer: 'anthropic', model: MODEL, ...usage }],
    });
    expect(server.requests).toHaveLength(1);
  });

  it('sends the model, the system prompt and one user message with the transcript, ids, times and roles', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    const turns = conversation();
    turns.push({ id: 't_000007', role: 'user', text: 'And the index name stays as is.' });
    await summarizerFor(server).summarize(inputWith({ turns }));

    const request = server.requests[0];
    expect(request?.route).toBe('messages');
    expect(request?.body.model).toBe(MODEL);
    expect(request?.body.system).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(request?.body.max_tokens).toBeGreaterThan(120);
    expect(request?.body.messages).toHaveLength(1);
    expect(request?.body.messages[0]?.role).toBe('user');
    const prompt = sentPrompt(server);
    expect(prompt).toContain(`[t_000001 · 2024-01-02 03:04 UTC · user] ${turns[0]?.text}`);
    expect(prompt).toContain(`[t_000002 · 2024-01-02 03:05 UTC · assistant] ${turns[1]?.text}`);
    // A turn without a timestamp carries only its id and role.
    expect(prompt).toContain('[t_000007 · user] And the index name stays as is.');
    expect(prompt).not.toContain('<previous_summary>');
    expect(prompt).not.toContain('<instructions>');
    // Identifiers go over the wire exactly as the turns hold them.
    for (const identifier of ['DATABASE_URL=postgres://ledger@db-3:5432/ledger', 'drizzle/0007_turn_depth.sql', '$1,200']) {
      expect(prompt).toContain(identifier);
    }
  });

  it('sends the previous summary in <previous_summary> and the instructions in <instructions>', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    await summarizerFor(server).summarize(
      inputWith({
        previousSummary: '  [t_000000] The ledger started on SQLite 3.45.  ',
        instructions: ' keep the schema decisions ',
      }),
    );
    const prompt = sentPrompt(server);
    expect(prompt).toContain('<previous_summary>\n[t_000000] The ledger started on SQLite 3.45.\n</previous_summary>');
    expect(prompt).toContain('<instructions>\nkeep the schema decisions\n</instructions>');
    expect(prompt.indexOf('<previous_summary>')).toBeLessThan(prompt.indexOf('<transcript>'));
    expect(prompt).toContain('updated summary');
  });

  it('sends the API key (this SDK sends it as a bearer token)', async () => {
    const server = await loopback();
    await summarizerFor(server).summarize(inputWith());
    // @anthropic-ai/sdk 1.x sends `apiKey` as `Authorization: Bearer <key>`, not `x-api-key`.
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
  });

  it('asks the model given in the options', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: SUMMARY });
    const result = await summarizerFor(server, { model: 'claude-other-model' }).summarize(inputWith());
    expect(server.requests[0]?.body.model).toBe('claude-other-model');
    expect(result.writtenBy).toBe('anthropic/claude-other-model');
    expect(result.calls?.[0]?.model).toBe('claude-other-model');
  });

  it('asks NEXUS_SUMMARY_MODEL when no model is given, and the default model when that is unset', async () => {
    const server = await loopback();
    const saved = process.env.NEXUS_SUMMARY_MODEL;
    try {
      process.env.NEXUS_SUMMARY_MODEL = 'claude-from-env';
      const fromEnv = createAnthropicSummarizer({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      delete process.env.NEXUS_SUMMARY_MODEL;
      const byDefault = createAnthropicSummarizer({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
      server.enqueue({ kind: 'text', text: SUMMARY }, { kind: 'text', text: SUMMARY });
      expect((await fromEnv.summarize(inputWith())).writtenBy).toBe('anthropic/claude-from-env');
      expect((await byDefault.summarize(inputWith())).writtenBy).toBe(`anthropic/${DEFAULT_SUMMARY_MODEL}`);
      expect(server.requests.map((request) => request.body.model)).toEqual(['claude-from-env', DEFAULT_SUMMARY_MODEL]);
    } finally {
      if (saved === undefined) delete process.env.NEXUS_SUMMARY_MODEL;
      else process.env.NEXUS_SUMMARY_MODEL = saved;
    }
  });

  it('clips a reply over targetTokens (but under its input) to the target at a line boundary', async () => {
    const server = await loopback();
    const lines = SUMMARY.split('\n');
    const input = inputWith({ targetTokens: count(lines.slice(0, 2).join('\n')) + 2 });
    expect(count(SUMMARY)).toBeGreaterThan(input.targetTokens);
    expect(count(SUMMARY)).toBeLessThan(inputTokensOf(input));
    server.enqueue({ kind: 'text', text: SUMMARY, stopReason: 'max_tokens' });

    const result = await summarizerFor(server).summarize(input);
    expect(result.text).toBe(lines.slice(0, 2).join('\n'));
    expect(count(result.text)).toBeLessThanOrEqual(input.targetTokens);
    expect(result.writtenBy).toBe(`anthropic/${MODEL}`);
    expect(result.calls).toEqual([
      { summarizer: 'anthropic', model: MODEL, inputTokens: expect.any(Number), outputTokens: Math.ceil(SUMMARY.length / 4) },
    ]);
  });

  it('rejects a targetTokens that is not a positive finite number without any request', async () => {
    const server = await loopback();
    const summarizer = summarizerFor(server);
    for (const targetTokens of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(summarizer.summarize(inputWith({ targetTokens }))).rejects.toMatchObject({
        code: 'SUMMARIZER_FAILED',
        summarizer: 'anthropic',
      });
    }
    expect(server.requests).toEqual([]);
  });
});

describe('createAnthropicSummarizer, when the API fails', () => {
  it('retries a 429 with retry-after: 0 and uses the summary of the retry', async () => {
    const server = await loopback();
    server.enqueue(
      {
        kind: 'error',
        status: 429,
        errorType: 'rate_limit_error',
        message: 'Number of requests has exceeded your rate limit.',
        headers: { 'retry-after': '0' },
      },
      { kind: 'text', text: SUMMARY },
    );
    const result = await summarizerFor(server).summarize(inputWith());
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['x-stainless-retry-count']).toBe('1');
    expect(result.text).toBe(SUMMARY);
    expect(result.writtenBy).toBe(`anthropic/${MODEL}`);
    expect(result.calls).toHaveLength(1);
    expect(result.calls?.[0]?.rejected).toBeUndefined();
  });

  it('retries a 529 overloaded_error and uses the summary of the retry', async () => {
    const server = await loopback();
    server.enqueue(
      { kind: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after': '0' } },
      { kind: 'text', text: SUMMARY },
    );
    const result = await summarizerFor(server).summarize(inputWith());
    expect(server.requests).toHaveLength(2);
    expect(result.text).toBe(SUMMARY);
    expect(result.writtenBy).toBe(`anthropic/${MODEL}`);
  });

  it('falls back to the extractive summary when 500s outlast the retries, recording the API error', async () => {
    const server = await loopback({ respond: always(SERVER_ERROR) });
    const input = inputWith();
    const result = await summarizerFor(server, { maxRetries: 1 }).summarize(input);
    const expected = await extractive(input);

    expect(server.requests).toHaveLength(2);
    expect(result.text).toBe(expected.text);
    expect(result.sources).toEqual(expected.sources);
    expect(result.writtenBy).toBe('extractive');
    // The failed call cost nothing that the API reported.
    expect(result.usage).toEqual(expected.usage);
    expect(result.calls).toEqual([
      { summarizer: 'anthropic', model: MODEL, inputTokens: 0, outputTokens: 0, rejected: expect.any(String) },
      { summarizer: 'extractive', ...expected.usage },
    ]);
    expect(result.calls?.[0]?.rejected).toMatch(/^api-error: HTTP 500/);
    expect(result.calls?.[0]?.rejected).toContain('Internal server error');
  });

  it('does not retry a 400 and falls back, recording the API message', async () => {
    const server = await loopback({ contextWindow: 10 });
    const result = await summarizerFor(server).summarize(inputWith());
    expect(server.requests).toHaveLength(1);
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]?.rejected).toMatch(
      /^api-error: HTTP 400 invalid_request_error: prompt is too long: \d+ tokens > 10 maximum$/,
    );
  });

  it('falls back when the connection hangs past timeoutMs, recording the timeout', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'hang' });
    const input = inputWith();
    const result = await summarizerFor(server, { timeoutMs: 300, maxRetries: 0 }).summarize(input);
    expect(server.requests).toHaveLength(1);
    expect(result.text).toBe((await extractive(input)).text);
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]?.rejected).toMatch(/^api-error: .*timed out/);
  });

  it('falls back when a 200 carries malformed JSON', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'raw', status: 200, body: '{"id": "msg_1", "type": "message", "content": [' });
    const result = await summarizerFor(server).summarize(inputWith());
    expect(server.requests).toHaveLength(1);
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]?.rejected).toMatch(/^api-error: the API answered with malformed JSON/);
  });
});

describe('createAnthropicSummarizer, when the guards reject the summary', () => {
  it.each<[string, LoopbackReply]>([
    ['no content', { kind: 'content', content: [] }],
    ['only whitespace', { kind: 'text', text: '  \n ' }],
  ])('rejects a reply with %s as empty', async (_label, reply) => {
    const server = await loopback();
    server.enqueue(reply);
    const result = await summarizerFor(server).summarize(inputWith());
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]).toMatchObject({ summarizer: 'anthropic', model: MODEL, rejected: 'empty' });
  });

  it.each<[string, LoopbackReply]>([
    ['a refusal in its text', { kind: 'text', text: REFUSAL }],
    ['stop_reason refusal', { kind: 'text', text: SUMMARY, stopReason: 'refusal' }],
  ])('rejects a reply with %s as a refusal', async (_label, reply) => {
    const server = await loopback();
    server.enqueue(reply);
    const input = inputWith();
    const result = await summarizerFor(server).summarize(input);
    expect(result.text).toBe((await extractive(input)).text);
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]?.rejected).toBe('refusal');
  });

  it('rejects a reply much longer than its input as did-not-shrink', async () => {
    const server = await loopback();
    const input = inputWith();
    const padded = input.turns.map((turn) => `[${turn.id}] ${turn.text} ${turn.text}`).join('\n');
    expect(count(padded)).toBeGreaterThan(inputTokensOf(input));
    server.enqueue({ kind: 'text', text: padded });
    const result = await summarizerFor(server).summarize(input);
    expect(result.writtenBy).toBe('extractive');
    expect(result.calls?.[0]?.rejected).toBe('did-not-shrink');
  });

  it('adds the tokens the rejected call spent to the fallback usage, and records both calls', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: REFUSAL });
    const input = inputWith();
    const result = await summarizerFor(server).summarize(input);
    const expected = await extractive(input);
    const spent = { inputTokens: server.requests[0]?.inputTokens ?? -1, outputTokens: Math.ceil(REFUSAL.length / 4) };

    expect(result.usage).toEqual({
      inputTokens: spent.inputTokens + expected.usage.inputTokens,
      outputTokens: spent.outputTokens + expected.usage.outputTokens,
    });
    expect(result.calls).toEqual([
      { summarizer: 'anthropic', model: MODEL, ...spent, rejected: 'refusal' },
      { summarizer: 'extractive', ...expected.usage },
    ]);
  });
});

describe('createAnthropicSummarizer fallbacks and deferral', () => {
  function backupSummarizer(result: Partial<SummarizeResult> = {}): Summarizer & { inputs: SummarizeInput[] } {
    const inputs: SummarizeInput[] = [];
    return {
      name: 'backup',
      inputs,
      async summarize(input) {
        inputs.push(input);
        return { text: 'Backup summary [t_000001].', usage: { inputTokens: 7, outputTokens: 3 }, ...result };
      },
    };
  }

  it('uses the fallback given, with the same input, and records its call', async () => {
    const server = await loopback({ respond: always(SERVER_ERROR) });
    const backup = backupSummarizer();
    const input = inputWith({ instructions: 'keep the schema decisions' });
    const result = await summarizerFor(server, { maxRetries: 0, fallback: backup }).summarize(input);
    expect(backup.inputs).toEqual([input]);
    expect(result).toEqual({
      text: 'Backup summary [t_000001].',
      usage: { inputTokens: 7, outputTokens: 3 },
      writtenBy: 'backup',
      calls: [
        {
          summarizer: 'anthropic',
          model: MODEL,
          inputTokens: 0,
          outputTokens: 0,
          rejected: expect.stringMatching(/^api-error: HTTP 500/),
        },
        { summarizer: 'backup', inputTokens: 7, outputTokens: 3 },
      ],
    });
  });

  it("keeps the fallback's own writtenBy and calls when it reports them", async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: REFUSAL });
    const ownCall = { summarizer: 'backup', model: 'backup-model', inputTokens: 7, outputTokens: 3 };
    const backup = backupSummarizer({ writtenBy: 'backup/backup-model', calls: [ownCall] });
    const result = await summarizerFor(server, { fallback: backup }).summarize(inputWith());
    expect(result.writtenBy).toBe('backup/backup-model');
    expect(result.calls).toEqual([expect.objectContaining({ summarizer: 'anthropic', rejected: 'refusal' }), ownCall]);
  });

  it('with onFailure defer, rejects with a SummarizerError saying the compaction is deferred, after an API failure', async () => {
    const server = await loopback({ respond: always(SERVER_ERROR) });
    const backup = backupSummarizer();
    const error = await summarizerFor(server, { maxRetries: 0, onFailure: 'defer', fallback: backup })
      .summarize(inputWith())
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error).toMatchObject({ code: 'SUMMARIZER_FAILED', summarizer: 'anthropic' });
    expect((error as SummarizerError).message).toMatch(/deferred/);
    expect((error as SummarizerError).message).toContain('HTTP 500');
    expect((error as SummarizerError).cause).toBeInstanceOf(Anthropic.InternalServerError);
    expect(backup.inputs).toEqual([]);
  });

  it('with onFailure defer, rejects when the guards reject the summary', async () => {
    const server = await loopback();
    server.enqueue({ kind: 'text', text: REFUSAL });
    const promise = summarizerFor(server, { onFailure: 'defer' }).summarize(inputWith());
    await expect(promise).rejects.toBeInstanceOf(SummarizerError);
    await expect(promise).rejects.toThrow(/\(refusal\).*deferred/);
  });
});
