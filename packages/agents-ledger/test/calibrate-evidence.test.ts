// What the model accepted bounds what calibration learns (calibrate-session.ts), on a real SQLite
// file: a refusal never teaches a window below the largest prompt the model answered, a reported
// maximum below such a prompt is not taken, and a prompt answered with a count that refutes the
// calibration redoes it, or drops it when it says no more than the user's settings; a restart reads
// what was written.

import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_MARGIN } from '../src/index.ts';
import { newSession, openTempLedger, type TempLedger } from './builders.ts';

let temp: TempLedger;
afterEach(() => temp?.cleanup());

const USER = { contextWindow: 200_000, reserveTokens: 20_000, keepRecentTokens: 30_000 };
// Issue 29's misreport: 1,500,000 tokens > 200,000 for a prompt this ledger estimates at 751.
const MISREPORT = { promptTokens: 1_500_000, estimatedTokens: 751, providerWindowTokens: 200_000 };

describe('a refusal, given the largest prompt the model accepted', () => {
  it('learns no window below that prompt (less the margin); without it the window is what the ratio says', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const floored = await ledger.calibrate((await newSession(ledger, USER)).id, { ...MISREPORT, acceptedTokens: 667 });
    expect(floored.settings.contextWindow).toBe(Math.floor(667 * CALIBRATION_MARGIN));
    expect(floored.calibration).toMatchObject({ providerWindowTokens: 200_000, promptTokens: 1_500_000, estimatedTokens: 751 });
    // The ratio kept is the one the floor allows, so forks and restarts compute the same window.
    expect(floored.calibration?.tokensPerEstimatedToken).toBeCloseTo(200_000 / 667, 6);

    const believed = await ledger.calibrate((await newSession(ledger, USER)).id, MISREPORT);
    expect(believed.settings.contextWindow).toBe(Math.floor((200_000 / (1_500_000 / 751)) * CALIBRATION_MARGIN));
    expect(believed.settings.contextWindow).toBeLessThan(floored.settings.contextWindow / 5);
  });

  it('leaves a report that agrees with what was accepted as it is', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const report = { promptTokens: 201_026, estimatedTokens: 1_324, providerWindowTokens: 200_000 };
    const plain = await ledger.calibrate((await newSession(ledger, USER)).id, report);
    const bounded = await ledger.calibrate((await newSession(ledger, USER)).id, { ...report, acceptedTokens: 1_300 });
    expect(bounded.settings).toEqual(plain.settings);
    expect(bounded.calibration?.tokensPerEstimatedToken).toBe(plain.calibration?.tokensPerEstimatedToken);
  });

  it('does not take a reported maximum below a prompt the model answered', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await ledger.calibrate((await newSession(ledger, USER)).id, {
      promptTokens: 5_000,
      estimatedTokens: 4_000,
      providerWindowTokens: 1_000,
      acceptedTokens: 3_000,
    });
    expect(session.calibration?.providerWindowTokens).toBeNull();
    expect(session.settings.contextWindow).toBe(Math.floor((200_000 / 1.25) * CALIBRATION_MARGIN));
  });
});

describe('a prompt the model accepted', () => {
  it('changes nothing in a session that learned nothing', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, USER);
    const after = await ledger.calibrate(session.id, { promptTokens: 900, estimatedTokens: 800, outcome: 'accepted' });
    expect(after.settings).toEqual(USER);
    expect(after.calibration).toBeNull();
  });

  it('redoes a calibration its count refutes, and drops it when what is left says nothing; a restart reads it', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, USER);
    const learned = await ledger.calibrate(session.id, { ...MISREPORT, acceptedTokens: 667 });
    expect(learned.settings.contextWindow).toBe(600);

    // Counted 1.3 per estimated token: the ratio is redone, the reported maximum stays.
    const redone = await ledger.calibrate(session.id, { promptTokens: 1_300, estimatedTokens: 1_000, outcome: 'accepted' });
    expect(redone.calibration).toMatchObject({
      tokensPerEstimatedToken: 1.3,
      providerWindowTokens: 200_000,
      promptTokens: 1_300,
    });
    expect(redone.settings.contextWindow).toBe(Math.floor((200_000 / 1.3) * CALIBRATION_MARGIN));
    expect(redone.settings.reserveTokens).toBe(Math.floor(20_000 * (redone.settings.contextWindow / 200_000)));

    // Counted no more than estimated, within the user's window: nothing is left to say.
    const dropped = await ledger.calibrate(session.id, { promptTokens: 950, estimatedTokens: 1_000, outcome: 'accepted' });
    expect(dropped.calibration).toBeNull();
    expect(dropped.settings).toEqual(USER);
    expect((await temp.reopen().getSession(session.id)).settings).toEqual(USER);
  });

  it('counted above the reported maximum, drops that maximum', async () => {
    temp = openTempLedger();
    const { ledger } = temp;
    const session = await newSession(ledger, USER);
    await ledger.calibrate(session.id, { promptTokens: 12_000, estimatedTokens: 4_000, providerWindowTokens: 10_000 });
    const after = await ledger.calibrate(session.id, { promptTokens: 24_000, estimatedTokens: 8_000, outcome: 'accepted' });
    expect(after.calibration).toMatchObject({ providerWindowTokens: null, tokensPerEstimatedToken: 3 });
    expect(after.settings.contextWindow).toBe(Math.floor((200_000 / 3) * CALIBRATION_MARGIN));
  });
});
