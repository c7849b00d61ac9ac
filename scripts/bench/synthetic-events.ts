// Generates deterministic, realistic inbound chat events for the events ledger: messages of a few busy channels, each a
// Slack/Discord-like JSON payload of about 200–400 bytes (text, user, thread, mentions, sometimes a reaction count).

import type { AppendEventInput } from '../../packages/events-ledger/src/index.ts';
import { createSeededRandom } from './seeded-random.ts';
import { proseText } from './synthetic-conversation.ts';

const CHANNELS = [
  'slack:C04OPS',
  'slack:C07BILLING',
  'slack:C09INCIDENTS',
  'discord:#deploys',
  'discord:#support',
  'email:oncall',
];
const USERS = [
  { id: 'U01ANA', name: 'ana' },
  { id: 'U02BEN', name: 'ben' },
  { id: 'U03CHLOE', name: 'chloe' },
  { id: 'U04DMITRI', name: 'dmitri' },
  { id: 'U05EMEKA', name: 'emeka' },
  { id: 'U06FATIMA', name: 'fatima' },
  { id: 'B01DEPLOYBOT', name: 'deploy-bot' },
];

export interface EventGenerator {
  /** The next `count` events, spread over the channels; every (channel, externalId) is new. */
  nextEvents(count: number): AppendEventInput[];
}

export function createEventGenerator(seed: number, startTime = Date.UTC(2026, 0, 1)): EventGenerator {
  const random = createSeededRandom(seed);
  let occurredAt = startTime;
  let messages = 0;
  const nextEvent = (): AppendEventInput => {
    messages += 1;
    occurredAt += random.integer(200, 20_000);
    const channel = random.pick(CHANNELS);
    const user = random.pick(USERS);
    const sourceId = `${Math.floor(occurredAt / 1000)}.${String(messages).padStart(6, '0')}`;
    const payload: Record<string, unknown> = {
      type: 'message',
      text: proseText(random, 12, 32),
      user,
      ts: sourceId,
      thread: random.chance(0.3) ? `${Math.floor((occurredAt - random.integer(60_000, 3_600_000)) / 1000)}.000000` : null,
      mentions: random.chance(0.25) ? [random.pick(USERS).id] : [],
    };
    if (random.chance(0.15)) payload.reactions = { eyes: random.integer(1, 4) };
    return { channel, externalId: sourceId, author: user.id, kind: 'message', payload, occurredAt };
  };
  return { nextEvents: (count) => Array.from({ length: count }, nextEvent) };
}
