// The checks a model's summary passes before it may replace turns: refusals, empty and oversized
// summaries are rejected; an accepted one is clipped to its budget at a line or sentence boundary.

import { estimateTokenCounter } from '@agent-ledger/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipSummary, isRefusal, rejectSummary } from './summary-guards.ts';

const count = (text: string) => estimateTokenCounter.countText(text);

describe('isRefusal', () => {
  it.each([
    "I'm sorry, but I don't see any conversation to summarize.",
    'I am unable to summarize this transcript.',
    "I'm afraid there is nothing here to summarize.",
    'I apologize, but the transcript is empty.',
    'I apologise, but the transcript is empty.',
    "Unfortunately, I can't see any messages in the transcript.",
    'I cannot summarize a conversation that was not provided.',
    "I don't see a transcript to work from.",
    "I won't summarize this.",
    'There is no conversation to summarize.',
    'There are no messages between the tags.',
    'No conversation was provided.',
    'No transcript was included.',
    'The transcript appears to be empty.',
    'The conversation is empty.',
    'As an AI, I have no access to earlier messages.',
  ])('is true for a reply opening with %j', (reply) => {
    expect(isRefusal(reply)).toBe(true);
  });

  it('looks past leading whitespace, quotes and markdown emphasis', () => {
    expect(isRefusal('  \n"I\'m sorry, but there is nothing to summarize."')).toBe(true);
    expect(isRefusal("**I'm sorry**, the transcript is empty.")).toBe(true);
    expect(isRefusal('# No conversation given')).toBe(true);
  });

  it.each([
    'No migrations were run on db-3; the schema stays at v14 [t_000004].',
    'No messages were lost during the Kafka migration to cluster-b [t_000006].',
    'The user said: "I cannot deploy on Fridays" [t_000003].',
    "[t_000001] I can't access the prod database from the VPN, so deploys go through bastion-2.",
    'Postgres 16 was chosen over MySQL 8 [t_000002]. Later the user wrote "I\'m sorry, I was wrong about the port" [t_000005].',
    'We decided to keep the ledger in SQLite [t_000007].',
  ])('is false for a real summary: %j', (summary) => {
    expect(isRefusal(summary)).toBe(false);
  });

  it('only reads the opening: a refusal phrase after the first 200 characters does not count', () => {
    expect(isRefusal(`${'The deploy moved to Tuesday. '.repeat(8)}I'm sorry, but I cannot summarize.`)).toBe(false);
  });

  // A refusal typed with a typographic apostrophe (U+2019) is short enough to pass the
  // did-not-shrink check, so only this guard stops it replacing the turns.
  it('is true for a refusal written with a typographic apostrophe', () => {
    expect(isRefusal('I\u2019m sorry, but I don\u2019t see any conversation to summarize.')).toBe(true);
  });
});

describe('rejectSummary', () => {
  const input = { inputTokens: 100 };

  it('rejects an empty or blank summary as empty', () => {
    expect(rejectSummary('', input, estimateTokenCounter)).toBe('empty');
    expect(rejectSummary(' \n\t ', input, estimateTokenCounter)).toBe('empty');
  });

  it('rejects a refusal, by its text or by stop_reason refusal', () => {
    expect(rejectSummary("I'm sorry, but I don't see any conversation to summarize.", input, estimateTokenCounter)).toBe(
      'refusal',
    );
    expect(
      rejectSummary('Postgres 16 was chosen [t_000002].', { inputTokens: 100, stopReason: 'refusal' }, estimateTokenCounter),
    ).toBe('refusal');
  });

  it('rejects a summary no smaller than its input as did-not-shrink', () => {
    const summary = 'Postgres 16 was chosen over MySQL 8 on db-3 [t_000002].';
    const tokens = count(summary);
    expect(rejectSummary(summary, { inputTokens: tokens }, estimateTokenCounter)).toBe('did-not-shrink');
    expect(rejectSummary(summary, { inputTokens: tokens - 1 }, estimateTokenCounter)).toBe('did-not-shrink');
    expect(rejectSummary(summary, { inputTokens: tokens + 1 }, estimateTokenCounter)).toBeNull();
  });

  it('accepts a smaller summary that is not a refusal, whatever the ordinary stop reason', () => {
    for (const stopReason of [undefined, null, 'end_turn', 'max_tokens']) {
      expect(
        rejectSummary('Postgres 16 was chosen [t_000002].', { inputTokens: 100, stopReason }, estimateTokenCounter),
      ).toBeNull();
    }
  });

  it('names emptiness before refusal, and refusal before size', () => {
    expect(rejectSummary('', { inputTokens: 0, stopReason: 'refusal' }, estimateTokenCounter)).toBe('empty');
    expect(rejectSummary("I'm sorry, I cannot help.", { inputTokens: 1 }, estimateTokenCounter)).toBe('refusal');
  });
});

describe('clipSummary', () => {
  const lines = [
    '[t_000001] Postgres 16 was chosen over MySQL 8.',
    '[t_000003] The config lives at /etc/ledger/ledger.toml.',
    '[t_000005] Deploys run with `make deploy --env=prod` after 18:00 UTC.',
  ];
  const summary = lines.join('\n');

  it('returns a summary within the target trimmed and otherwise unchanged', () => {
    expect(clipSummary(`\n  ${summary}  \n`, count(summary), estimateTokenCounter)).toBe(summary);
  });

  it('keeps the longest run of whole lines from the top that fits', () => {
    const twoLines = lines.slice(0, 2).join('\n');
    expect(clipSummary(summary, count(twoLines), estimateTokenCounter)).toBe(twoLines);
    expect(clipSummary(summary, count(summary) - 1, estimateTokenCounter)).toBe(twoLines);
    expect(clipSummary(summary, count(lines[0] as string), estimateTokenCounter)).toBe(lines[0]);
  });

  it('stops at the first line that does not fit, even when a later shorter one would', () => {
    const text = ['Short line one.', 'x'.repeat(400), 'Short line three.'].join('\n');
    expect(clipSummary(text, count('Short line one.\nShort line three.'), estimateTokenCounter)).toBe('Short line one.');
  });

  it('keeps whole sentences when the first line alone is over the target', () => {
    const line = 'Postgres 16 was chosen. The config lives at /etc/ledger/ledger.toml. Deploys run after 18:00 UTC.';
    const clipped = clipSummary(
      line,
      count('Postgres 16 was chosen. The config lives at /etc/ledger/ledger.toml.'),
      estimateTokenCounter,
    );
    expect(clipped).toBe('Postgres 16 was chosen. The config lives at /etc/ledger/ledger.toml.');
  });

  it('keeps words when even the first sentence is over the target', () => {
    const clipped = clipSummary('alpha beta gamma delta epsilon zeta eta theta iota kappa', 4, estimateTokenCounter);
    expect(clipped).toBe('alpha beta gamma delta');
  });

  it('never exceeds the target, for any text and any target of at least one token', () => {
    const piece = fc.constantFrom(
      'Postgres',
      '16',
      'was',
      'chosen.',
      '/etc/ledger/ledger.toml',
      '[t_000001]',
      '18:00',
      'UTC!',
      'why?',
      '\n',
      '\n\n',
      '   ',
      '- ',
      '`make deploy`',
      'émigré',
      '🙂',
      'x'.repeat(90),
      '1234567890123',
    );
    const text = fc.oneof(
      fc.array(piece, { maxLength: 80 }).map((pieces) => pieces.join(' ')),
      fc.array(piece, { maxLength: 80 }).map((pieces) => pieces.join('')),
      fc.string({ maxLength: 300 }),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 120 }), (summary, target) => {
        const clipped = clipSummary(summary, target, estimateTokenCounter);
        expect(count(clipped)).toBeLessThanOrEqual(target);
      }),
      { numRuns: 500 },
    );
  });

  it('returns a prefix of the lines whenever the first line fits', () => {
    const line = fc
      .array(fc.constantFrom('Postgres', '16', 'chosen.', '[t_000001]', '/etc/x.toml', 'port', '5432'), {
        minLength: 1,
        maxLength: 8,
      })
      .map((words) => words.join(' '));
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 80 }), (summaryLines, target) => {
        fc.pre(count(summaryLines[0] as string) <= target);
        const clipped = clipSummary(summaryLines.join('\n'), target, estimateTokenCounter);
        const keptLines = clipped.split('\n');
        expect(keptLines).toEqual(summaryLines.slice(0, keptLines.length));
      }),
      { numRuns: 300 },
    );
  });
});
