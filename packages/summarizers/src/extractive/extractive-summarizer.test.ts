// Behaviour of the extractive summarizer: budget, citations, selection, parsing and failure modes.

import { estimateTokenCounter, LedgerError, SummarizerError, type TokenCounter } from '@agent-ledger/core';
import { describe, expect, it } from 'vitest';
import type { SummarizeInput } from '../summarizer.ts';
import { createExtractiveSummarizer } from './extractive-summarizer.ts';
import { lineIds, summarize, textFromSources, turn, turnsFrom } from './test-helpers.ts';

const CHATTER = ['Thanks!', 'Sounds good.', 'Ok, let me know.', 'Great, thank you so much.', 'Sure, happy to help.'];

describe('createExtractiveSummarizer', () => {
  it('is named extractive', () => {
    expect(createExtractiveSummarizer().name).toBe('extractive');
  });

  it('returns the same summary byte for byte for the same input', async () => {
    const input: SummarizeInput = {
      previousSummary: '[t_000001] We chose Postgres 16.\nAlice owns the rollout.',
      turns: turnsFrom(
        'We pinned MySQL 5.7.44 on db-3. Port 3307 is open. Thanks!',
        'The config is at /etc/mysql/my.cnf and we set innodb_buffer_pool_size to 4G.',
        'Deploy with `make deploy --env=prod` after 18:00 UTC.',
      ),
      targetTokens: 40,
      instructions: 'keep the database details',
    };
    const first = await summarize(input);
    const second = await createExtractiveSummarizer().summarize(structuredClone(input));
    expect(second).toEqual(first);
    expect(first.text).not.toBe('');
  });

  it('keeps the facts over filler chatter when the budget is small', async () => {
    const facts = [
      'We pinned MySQL 5.7.44 on db-3.',
      'The proxy reads /etc/nginx/nginx.conf on boot.',
      'The admin API listens on port 8443.',
    ];
    for (const fact of facts) {
      const turns = turnsFrom(...CHATTER.slice(0, 2), `Ok. ${fact} Sounds good.`, ...CHATTER.slice(2));
      const result = await summarize({ turns, targetTokens: 25 });
      expect(result.text).toBe(`[t_000003] ${fact}`);
    }
  });

  it('leaves out pure pleasantries even when there is room for them', async () => {
    const result = await summarize({ turns: turnsFrom(...CHATTER), targetTokens: 1_000 });
    expect(result.text).toBe('');
  });

  it('prints kept sentences in their original order, one line per turn', async () => {
    const turns = turnsFrom(
      'First we tried Redis 6.2 on cache-1.',
      'Then the build failed with ENOENT on /usr/lib/node_modules/npm/bin/npm-cli.js, exit code 254.',
      'Finally we set NODE_OPTIONS=--max-old-space-size=4096 and it passed.',
    );
    const result = await summarize({ turns, targetTokens: 1_000 });
    expect(lineIds(result.text)).toEqual(['t_000001', 't_000002', 't_000003']);
    expect(result.text.split('\n')[0]).toBe('[t_000001] First we tried Redis 6.2 on cache-1.');
  });

  it('joins the kept sentences of one turn on its line', async () => {
    const result = await summarize({
      turns: turnsFrom('We pinned MySQL 5.7.44 on db-3. Port 3307 is open.'),
      targetTokens: 1_000,
    });
    expect(result.text).toBe('[t_000001] We pinned MySQL 5.7.44 on db-3. Port 3307 is open.');
  });

  it('does not split sentences on the dots of versions, paths, file names, URLs, abbreviations or decimals', async () => {
    const sentences = [
      'We upgraded MySQL to 5.7.44 yesterday.',
      'The proxy reads /etc/nginx/nginx.conf and config.yaml on boot.',
      'Docs are at https://example.com/docs/v1.2/index.html?page=2 for now.',
      'Use a queue, e.g. RabbitMQ or SQS, between the services.',
      'Latency dropped from 3.5 ms to 1.25 ms at p99.',
    ];
    const result = await summarize({ turns: turnsFrom(sentences.join(' ')), targetTokens: 1_000 });
    expect(result.sources?.map((source) => source.text)).toEqual(sentences);
  });

  it('treats each line of code as its own unit', async () => {
    const text = 'Run this:\n```\nexport DB_HOST=10.0.0.12\npsql -h $DB_HOST -p 5432 -U admin\n```';
    const result = await summarize({ turns: turnsFrom(text), targetTokens: 1_000 });
    expect(result.sources?.map((source) => source.text)).toEqual([
      'Run this:',
      'export DB_HOST=10.0.0.12',
      'psql -h $DB_HOST -p 5432 -U admin',
    ]);
  });

  it('clips a very long sentence with an ellipsis', async () => {
    const longSentence = `The migration touched ${Array.from({ length: 80 }, (_, index) => `table_${index}`).join(' ')} today.`;
    const result = await summarize({ turns: turnsFrom(longSentence), targetTokens: 1_000 });
    const kept = result.sources?.[0]?.text ?? '';
    expect(kept.endsWith(' …')).toBe(true);
    expect(longSentence.startsWith(kept.slice(0, -2))).toBe(true);
    expect(estimateTokenCounter.countText(kept)).toBeLessThanOrEqual(60);
  });

  it('parses the previous summary back into sentences with their ids, ahead of the new turns', async () => {
    const previousSummary =
      'Summary so far:\n[t_000001] We chose Postgres 16 for analytics. Port 5432 is open.\n[t_000002] Bob reviews the schema.';
    const result = await summarize({
      previousSummary,
      turns: [turn('t_000009', 'We moved CI to GitHub Actions.')],
      targetTokens: 1_000,
    });
    expect(result.sources).toEqual([
      { turnId: 'summary', text: 'Summary so far:' },
      { turnId: 't_000001', text: 'We chose Postgres 16 for analytics.' },
      { turnId: 't_000001', text: 'Port 5432 is open.' },
      { turnId: 't_000002', text: 'Bob reviews the schema.' },
      { turnId: 't_000009', text: 'We moved CI to GitHub Actions.' },
    ]);
    expect(result.text).toBe(
      [
        '[summary] Summary so far:',
        '[t_000001] We chose Postgres 16 for analytics. Port 5432 is open.',
        '[t_000002] Bob reviews the schema.',
        '[t_000009] We moved CI to GitHub Actions.',
      ].join('\n'),
    );
  });

  it('folds its own output back in unchanged when the budget allows', async () => {
    const first = await summarize({
      turns: turnsFrom('We pinned MySQL 5.7.44 on db-3. Port 3307 is open.', 'Alice owns the rollout.'),
      targetTokens: 1_000,
    });
    const second = await summarize({ previousSummary: first.text, turns: [], targetTokens: 1_000 });
    expect(second.text).toBe(first.text);
  });

  it('lets previous summary lines compete with new turns on score', async () => {
    const previousSummary = '[t_000001] We pinned MySQL 5.7.44 on db-3.\n[t_000002] The team met again.';
    const turns = [turn('t_000010', 'Thanks, sounds good.'), turn('t_000011', 'Redis 7.2 now runs on cache-2 at port 6380.')];
    // Room for two of the three lines: the vague old line loses to the new specific one.
    const result = await summarize({ previousSummary, turns, targetTokens: 50 });
    expect(lineIds(result.text)).toEqual(['t_000001', 't_000011']);
    expect(result.text).toContain('MySQL 5.7.44');
    expect(result.text).not.toContain('The team met again.');
  });

  it('boosts sentences that share words with the instructions', async () => {
    const turns = turnsFrom(
      'The frontend uses React 18.2 with Vite 5.1 on port 5173.',
      'The database schema keeps orders and invoices apart.',
    );
    const plain = await summarize({ turns, targetTokens: 25 });
    const instructed = await summarize({ turns, targetTokens: 25, instructions: 'Keep the database schema decisions.' });
    expect(lineIds(plain.text)).toEqual(['t_000001']);
    expect(lineIds(instructed.text)).toEqual(['t_000002']);
  });

  it('drops near-duplicates of a sentence it already keeps', async () => {
    const turns = turnsFrom(
      'We pinned MySQL 5.7.44 on db-3 for the billing service.',
      'Reminder: we pinned MySQL 5.7.44 on db-3 for the billing service.',
      'Port 3307 is open on db-3.',
      'Port 3308 is open on db-4.',
    );
    const result = await summarize({ turns, targetTokens: 1_000 });
    expect(result.text.match(/pinned MySQL/g)).toHaveLength(1);
    expect(result.text).toContain('Port 3307 is open on db-3.');
    expect(result.text).toContain('Port 3308 is open on db-4.');
  });

  it('reports sources that are exactly the sentences of the text, in order', async () => {
    const previousSummary = '[t_000001] We chose Postgres 16.\nAlice owns the rollout.';
    const turns = turnsFrom(
      'We pinned MySQL 5.7.44 on db-3. Thanks! Port 3307 is open.',
      'Deploy with `make deploy` after 18:00 UTC.',
    );
    for (const targetTokens of [15, 30, 60, 1_000]) {
      const result = await summarize({ previousSummary, turns, targetTokens });
      expect(result.sources).toBeDefined();
      expect(textFromSources(result.sources ?? [])).toBe(result.text);
    }
  });

  it('reports usage counted with the token counter it was given', async () => {
    const wordCounter: TokenCounter = { name: 'words', countText: (text) => text.split(/\s+/).filter(Boolean).length };
    const previousSummary = '[t_000001] We chose Postgres 16 for analytics.';
    const turns = turnsFrom('We pinned MySQL 5.7.44 on db-3. Port 3307 is open.', 'Thanks, sounds good!');
    const result = await summarize({ previousSummary, turns, targetTokens: 12 }, wordCounter);
    expect(result.usage.inputTokens).toBe(7 + 10 + 3);
    expect(result.usage.outputTokens).toBe(wordCounter.countText(result.text));
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeLessThanOrEqual(12);
  });

  it('returns an empty summary for empty input', async () => {
    const result = await summarize({ turns: [], targetTokens: 100 });
    expect(result).toEqual({ text: '', usage: { inputTokens: 0, outputTokens: 0 }, sources: [] });
  });

  it('returns an empty summary when not even one line fits', async () => {
    const result = await summarize({ turns: turnsFrom('We pinned MySQL 5.7.44 on db-3.'), targetTokens: 3 });
    expect(result.text).toBe('');
    expect(result.usage.outputTokens).toBe(0);
  });

  it('rejects a target that is not a positive finite number with a SummarizerError', async () => {
    for (const targetTokens of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const failure = await summarize({ turns: turnsFrom('We pinned MySQL 5.7.44.'), targetTokens }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(SummarizerError);
      expect(LedgerError.isInstance(failure) && failure.code).toBe('SUMMARIZER_FAILED');
      expect((failure as SummarizerError).summarizer).toBe('extractive');
    }
  });
});
